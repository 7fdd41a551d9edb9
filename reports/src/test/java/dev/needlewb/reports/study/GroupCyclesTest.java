package dev.needlewb.reports.study;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Fixed-point and cycle detection on synthetic state sequences (the state is its own fingerprint). */
class GroupCyclesTest {

    /** Feeds sequences[g][round] round by round; returns the detector after {@code rounds} rounds. */
    private static GroupCycles feed(long[][] sequences, int rounds, GroupCycles.StateCheck check) {
        int groups = sequences.length;
        long[] round0 = new long[groups];
        for (int g = 0; g < groups; g++) round0[g] = sequences[g][0];
        GroupCycles cycles = new GroupCycles(round0);
        for (int r = 1; r <= rounds; r++) {
            int[] changed = new int[groups];
            long[] prints = new long[groups];
            int n = 0;
            for (int g = 0; g < groups; g++) {
                if (sequences[g][r] != sequences[g][r - 1]) {
                    changed[n] = g;
                    prints[n++] = sequences[g][r];
                }
            }
            cycles.record(changed, prints, n, check);
        }
        return cycles;
    }

    private static GroupCycles.StateCheck exact(long[][] sequences) {
        return (g, a, b) -> sequences[g][a] == sequences[g][b];
    }

    @Test
    void fixedPointsAndCyclesPerGroupCombineIntoTheTensorRepeat() {
        long[][] seq = {
            {7, 7, 7, 7, 7, 7, 7, 7},          // fixed from round 0
            {1, 2, 3, 3, 3, 3, 3, 3},          // fixed from round 2
            {10, 11, 12, 11, 12, 11, 12, 11},  // 2-cycle from round 1
            {20, 21, 22, 23, 21, 22, 23, 21},  // 3-cycle from round 1
        };
        GroupCycles cycles = feed(seq, 4, exact(seq));
        assertThat(cycles.unsettled()).isZero();
        assertThat(cycles.cycleStart(0)).isZero();
        assertThat(cycles.period(0)).isEqualTo(1);
        assertThat(cycles.cycleStart(1)).isEqualTo(2);
        assertThat(cycles.period(1)).isEqualTo(1);
        assertThat(cycles.cycleStart(2)).isEqualTo(1);
        assertThat(cycles.period(2)).isEqualTo(2);
        assertThat(cycles.cycleStart(3)).isEqualTo(1);
        assertThat(cycles.period(3)).isEqualTo(3);
        // The whole state first repeats at round 2 + lcm(1, 2, 3) = 8, equal to round 2: true of seq by construction.
        assertThat(cycles.repeat()).isEqualTo(new GroupCycles.Repeat(2, 6));
    }

    @Test
    void aFingerprintCollisionIsNotACycle() {
        long[][] seq = {{5, 6, 5, 5}};
        // The check says the states differ although their fingerprints collide: not settled at round 2, fixed at 3.
        GroupCycles cycles = feed(seq, 2, (g, a, b) -> false);
        assertThat(cycles.settled(0)).isFalse();
        cycles.record(new int[0], new long[0], 0, (g, a, b) -> false);
        assertThat(cycles.cycleStart(0)).isEqualTo(2);
        assertThat(cycles.period(0)).isEqualTo(1);
    }

    @Test
    void allFixedGivesAFixedPointAtTheLatestStart() {
        long[][] seq = {{1, 1, 1, 1}, {1, 2, 3, 3}};
        GroupCycles cycles = feed(seq, 3, exact(seq));
        assertThat(cycles.repeat()).isEqualTo(new GroupCycles.Repeat(2, 1));
        assertThat(cycles.repeat().fixedPoint()).isTrue();
    }
}
