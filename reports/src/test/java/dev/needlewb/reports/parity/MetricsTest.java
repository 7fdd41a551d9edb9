package dev.needlewb.reports.parity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The metrics on inputs small enough to work out by hand. */
class MetricsTest {

    @Test
    void tapMetricsOfAKnownError() {
        double[] ref = {3, 4, 0, 0};
        float[] eng = {3, 4, 0.5f, 0};
        TapMetrics m = TapMetrics.of(ref, eng);
        // error vector (0, 0, 0.5, 0); ||ref|| = 5; ||eng|| = sqrt(25.25). Exact in double up to rounding (1e-15).
        assertThat(m.maxAbs()).isEqualTo(0.5);
        assertThat(m.rms()).isCloseTo(Math.sqrt(0.25 / 4), within(1e-15));
        assertThat(m.relL2()).isCloseTo(0.1, within(1e-15));
        assertThat(m.cosine()).isCloseTo(25 / (5 * Math.sqrt(25.25)), within(1e-15));
        // The error sits on a reference zero, whose float32 ulp is the smallest subnormal.
        assertThat(m.maxUlps()).isEqualTo(0.5 / Float.MIN_VALUE);
    }

    @Test
    void ulpsAreCountedAtTheReferenceValue() {
        double ref = 1.0;
        float eng = Math.nextUp(Math.nextUp(1.0f));
        assertThat(TapMetrics.of(new double[] {ref}, new float[] {eng}).maxUlps()).isEqualTo(2.0);
    }

    @Test
    void identicalTapsHaveNoError() {
        TapMetrics m = TapMetrics.of(new double[] {1, -2, 0.25}, new float[] {1, -2, 0.25f});
        assertThat(m.maxAbs()).isZero();
        assertThat(m.relL2()).isZero();
        assertThat(m.cosine()).isCloseTo(1.0, within(1e-15));
    }

    @Test
    void logitMetricsCountArgmaxFlipsAndKl() {
        // Two positions over a vocabulary of 6: the first identical, the second with the top two swapped.
        double[] ref = {5, 4, 3, 2, 1, 0, 0, 1, 2, 3, 4, 5};
        float[] eng = {5, 4, 3, 2, 1, 0, 0, 1, 2, 3, 5, 4};
        LogitMetrics m = LogitMetrics.of(ref, eng, 2, 6);
        assertThat(m.top1()).isEqualTo(0.5);
        // The top five sets are the same at both positions (only their order changes).
        assertThat(m.top5()).isEqualTo(1.0);
        double[] p = softmax(0, 1, 2, 3, 4, 5);
        // KL(p || q) where q swaps the two largest probabilities: (p5 - p4) * (ln p5 - ln p4) = (p5 - p4) * 1.
        double kl = (p[5] - p[4]) * 1.0;
        assertThat(m.maxKl()).isCloseTo(kl, within(1e-12));
        assertThat(m.meanKl()).isCloseTo(kl / 2, within(1e-12));
        assertThat(m.maxProbDiff()).isCloseTo(p[5] - p[4], within(1e-12));
    }

    @Test
    void aFlipBetweenTokensTheReferenceNearlyTiesIsANearTieOnlyInsideTheMargin() {
        // Row RMS sqrt((25 + 4.9^2 + 0 + 0 + 1 + 1) / 6) = 2.86; the engine picks token 1, 0.1 below the reference's token 0.
        double[] ref = {5, 4.9, 0, 0, 1, -1};
        float[] eng = {4.9f, 5, 0, 0, 1, -1};
        double rms = Math.sqrt((25 + 4.9 * 4.9 + 2) / 6);
        assertThat(LogitMetrics.of(ref, eng, 1, 6).nearTies()).isZero();
        LogitMetrics inside = LogitMetrics.of(ref, eng, 1, 6, 0.11 / rms);
        assertThat(inside.top1()).isZero();
        assertThat(inside.nearTies()).isEqualTo(1);
        assertThat(inside.top1BeyondTies()).isEqualTo(1.0);
        assertThat(LogitMetrics.of(ref, eng, 1, 6, 0.09 / rms).nearTies()).isZero();
    }

    @Test
    void theTopOneLimitExcusesNearTiesByTwiceTheRelL2LimitAndSaysSo() throws Exception {
        Limits limits = new Limits(null, null, 0.05, null, null, 0.95, null, null, null, null);
        assertThat(limits.tieMargin()).isEqualTo(LogitMetrics.TIE_FACTOR * 0.05);
        TapMetrics m = new TapMetrics(0, 0, 0.01, 1, 0);
        // 20 positions, 2 flips of which 1 a near tie: 19 of 20 count as agreeing.
        assertThat(limits.violations(m, new LogitMetrics(0.9, 1, 0, 0, 0, 1, 20))).isEmpty();
        assertThat(limits.violations(m, new LogitMetrics(0.85, 1, 0, 0, 0, 1, 20)))
                .containsExactly("top1 (1 near ties excused) 0.900000 < 0.950000");
        // No rel-L2 limit, no margin: a profile that does not bound the logits' error excuses nothing.
        assertThat(new Limits(null, null, null, null, null, 0.95, null, null, null, null).tieMargin()).isZero();
    }

    @Test
    void topFiveOverlapCountsSharedTokens() {
        // Engine moves token 0 (reference rank 5) below token 5: four of five shared.
        double[] ref = {5, 6, 7, 8, 9, 1};
        float[] eng = {0, 6, 7, 8, 9, 1};
        assertThat(LogitMetrics.of(ref, eng, 1, 6).top5()).isCloseTo(0.8, within(1e-15));
    }

    private static double[] softmax(double... v) {
        double sum = 0;
        double[] out = new double[v.length];
        for (int i = 0; i < v.length; i++) sum += out[i] = Math.exp(v[i]);
        for (int i = 0; i < v.length; i++) out[i] /= sum;
        return out;
    }
}
