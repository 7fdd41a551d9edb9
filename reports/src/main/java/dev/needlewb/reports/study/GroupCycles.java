package dev.needlewb.reports.study;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

/**
 * Fixed points and cycles of many independent trajectories (one per CQ group) under a
 * deterministic map, from 64-bit fingerprints of their states. A group whose state did not change
 * in a round has reached a fixed point; a group whose new fingerprint equals one of an earlier
 * round (not the previous one) is checked exactly by the caller and, if equal, is on a cycle. Only
 * the fingerprints of groups that changed are kept per round, so memory follows the groups still
 * moving rather than rounds times groups.
 */
final class GroupCycles {
    /** Exact comparison of group {@code g}'s states at two rounds, to confirm a fingerprint match. */
    interface StateCheck {
        boolean same(int g, int earlierRound, int laterRound);
    }

    /** The whole tensor repeats: its state at {@code start + length} equals its state at {@code start}. */
    record Repeat(int start, long length) {
        boolean fixedPoint() {
            return length == 1;
        }
    }

    private final long[] round0;
    private final List<int[]> changedGroups = new ArrayList<>();
    private final List<long[]> changedPrints = new ArrayList<>();
    private final int[] start;
    private final int[] period;
    private int unsettled;

    GroupCycles(long[] round0Fingerprints) {
        this.round0 = round0Fingerprints.clone();
        this.start = new int[round0.length];
        this.period = new int[round0.length];
        Arrays.fill(start, -1);
        this.unsettled = round0.length;
    }

    /** Rounds recorded after round 0. */
    int rounds() {
        return changedGroups.size();
    }

    int unsettled() {
        return unsettled;
    }

    boolean settled(int g) {
        return start[g] >= 0;
    }

    /** The round at which group g's cycle starts (its fixed point's first round), or -1. */
    int cycleStart(int g) {
        return start[g];
    }

    /** The length of group g's cycle (1 for a fixed point), or 0 while unknown. */
    int period(int g) {
        return period[g];
    }

    /**
     * Records the next round: {@code changed[0, count)} (ascending) are the groups whose state
     * differs from the previous round, with their new fingerprints; every other unsettled group
     * has reached a fixed point.
     */
    void record(int[] changed, long[] prints, int count, StateCheck check) {
        int round = changedGroups.size() + 1;
        int[] ids = Arrays.copyOf(changed, count);
        long[] fps = Arrays.copyOf(prints, count);
        for (int i = 1; i < count; i++) {
            if (ids[i] <= ids[i - 1]) throw new IllegalArgumentException("changed groups must ascend");
        }
        int next = 0;
        for (int g = 0; g < start.length; g++) {
            boolean moved = next < count && ids[next] == g;
            long print = moved ? fps[next++] : 0;
            if (start[g] >= 0) continue;
            if (!moved) {
                settle(g, round - 1, 1);
                continue;
            }
            for (int earlier = 0; earlier <= round - 2; earlier++) {
                OptionalLong old = fingerprint(g, earlier);
                if (old.isPresent() && old.getAsLong() == print && check.same(g, earlier, round)) {
                    settle(g, earlier, round - earlier);
                    break;
                }
            }
        }
        changedGroups.add(ids);
        changedPrints.add(fps);
    }

    private void settle(int g, int cycleStart, int length) {
        start[g] = cycleStart;
        period[g] = length;
        unsettled--;
    }

    /** Group g's fingerprint at {@code round}, if it changed in that round (always known for round 0). */
    private OptionalLong fingerprint(int g, int round) {
        if (round == 0) return OptionalLong.of(round0[g]);
        int at = Arrays.binarySearch(changedGroups.get(round - 1), g);
        return at < 0 ? OptionalLong.empty() : OptionalLong.of(changedPrints.get(round - 1)[at]);
    }

    /**
     * Once every group is settled: the first round at which the whole state equals an earlier
     * one. Each group repeats with its own period from its own start, so the tensor repeats from
     * the latest start with the least common multiple of the periods.
     */
    Repeat repeat() {
        if (unsettled > 0) throw new IllegalStateException(unsettled + " groups are not settled yet");
        int latest = 0;
        long length = 1;
        for (int g = 0; g < start.length; g++) {
            latest = Math.max(latest, start[g]);
            length = lcm(length, period[g]);
        }
        return new Repeat(latest, length);
    }

    /** Saturates at Long.MAX_VALUE: a cycle that long is never reached anyway. */
    private static long lcm(long a, long b) {
        long gcd = a;
        for (long y = b; y != 0; ) {
            long t = gcd % y;
            gcd = y;
            y = t;
        }
        long step = b / gcd;
        return a > Long.MAX_VALUE / step ? Long.MAX_VALUE : a * step;
    }
}
