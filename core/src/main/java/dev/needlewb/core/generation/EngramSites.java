package dev.needlewb.core.generation;

/** A rule about engram sites every generation shares. */
public final class EngramSites {
    private EngramSites() {}

    /**
     * The index of the first site that repeats an earlier site's layer, or -1. Upstream's full and
     * cached paths disagree on a repeated site, so every engine here refuses one.
     */
    public static int firstRepeated(int[] sites) {
        for (int i = 0; i < sites.length; i++) {
            for (int j = 0; j < i; j++) {
                if (sites[j] == sites[i]) return i;
            }
        }
        return -1;
    }
}
