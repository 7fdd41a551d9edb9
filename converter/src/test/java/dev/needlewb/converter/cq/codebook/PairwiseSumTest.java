package dev.needlewb.converter.cq.codebook;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PairwiseSumTest {

    /** (2u - 1) * 2^(i mod 37 - 18) for u = RandomState(7).random_sample(n): magnitudes vary so order matters. */
    private static double[] values(int n) {
        LegacyRandomState r = new LegacyRandomState(7);
        double[] x = new double[n];
        for (int i = 0; i < n; i++) x[i] = (r.nextDouble() * 2 - 1) * Math.scalb(1.0, i % 37 - 18);
        return x;
    }

    // Expected: x.sum() and x.mean() printed by NumPy 2.4 as hex; compared exactly (bit for bit)
    // because the whole point is to round like NumPy.
    @ParameterizedTest
    @CsvSource({
        "7, 0x1.5420102162d21p-14, 0x1.84b6eddd03393p-17",
        "100, 0x1.ce302e5839306p+16, 0x1.27ccea75e7293p+10",
        "128, 0x1.646c3ad395eb8p+15, 0x1.646c3ad395eb8p+8",
        "1000, -0x1.205a7d38cecbcp+20, -0x1.27462204ec55cp+10",
        "100003, -0x1.752582cda3c40p+22, -0x1.e913710d52bd4p+5"
    })
    void sumAndMeanRoundLikeNumpy(int n, String sum, String mean) {
        double[] x = values(n);
        assertThat(PairwiseSum.sum(x, 0, n)).isEqualTo(Double.parseDouble(sum));
        assertThat(PairwiseSum.mean(x, 0, n)).isEqualTo(Double.parseDouble(mean));
    }

    @Test
    void differsFromALeftToRightLoopSoTheTestCanTellThemApart() {
        double[] x = values(1000);
        double naive = 0;
        for (double v : x) naive += v;
        assertThat(naive).isNotEqualTo(PairwiseSum.sum(x, 0, x.length));
    }

    @Test
    void sumsASubrange() {
        double[] x = values(300);
        double[] tail = java.util.Arrays.copyOfRange(x, 100, 300);
        assertThat(PairwiseSum.sum(x, 100, 200)).isEqualTo(PairwiseSum.sum(tail, 0, 200));
    }
}
