package dev.needlewb.reference.v3;

import dev.needlewb.converter.v3.HadaPermutations;
import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;

/**
 * The fixed gathers between the Kronecker MLP's stages ({@code _hada_perms}): {@code p1} after
 * stage 1 and {@code p2} after stage 2, {@code RandomState(11 | 13).permutation(n)}; with
 * {@code ladder_widths} set, each is two halves shuffled apart (seeds s and s + 977, the second
 * half offset by n/2). A {@code .cact} stores them as hada_p1/hada_p2.
 */
public final class MlpPermutations {

    private final int[] p1;
    private final int[] p2;

    private MlpPermutations(int[] p1, int[] p2) {
        this.p1 = p1.clone();
        this.p2 = p2.clone();
    }

    /** The permutations upstream draws for {@code c}. */
    public static MlpPermutations of(V3Config c) {
        int n = c.hadaN();
        return new MlpPermutations(HadaPermutations.Gather.P1.draw(n, c.splitPermutations()),
                HadaPermutations.Gather.P2.draw(n, c.splitPermutations()));
    }

    /**
     * Permutations read from a file; each must hold every index of 0..n-1 once.
     *
     * @throws WorkbenchException a length other than n, or an index missing or repeated
     */
    public static MlpPermutations checked(int[] p1, int[] p2, int n) throws WorkbenchException {
        check("hada_p1", p1, n);
        check("hada_p2", p2, n);
        return new MlpPermutations(p1, p2);
    }

    private static void check(String name, int[] p, int n) throws WorkbenchException {
        if (p.length != n) throw new WorkbenchException(ErrorKind.SHAPE_MISMATCH, name + " holds " + p.length + " entries, the MLP length is " + n);
        boolean[] seen = new boolean[n];
        for (int i = 0; i < n; i++) {
            if (p[i] < 0 || p[i] >= n || seen[p[i]]) {
                throw new WorkbenchException(ErrorKind.BAD_VALUE, name + "[" + i + "] = " + p[i] + ": not a permutation of 0.." + (n - 1));
            }
            seen[p[i]] = true;
        }
    }

    public int[] p1() {
        return p1.clone();
    }

    public int[] p2() {
        return p2.clone();
    }

    /** The gather after stage {@code stage} (0: p1, 1: p2), not copied: callers only read it. */
    int[] after(int stage) {
        return stage == 0 ? p1 : p2;
    }
}
