package dev.needlewb.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ExactHadamardTest {

    /** Upstream's construction: start from [[1]], repeat H = [[H, H], [H, -H]]. */
    static int[][] blockRecursion(int n) {
        int[][] h = {{1}};
        while (h.length < n) {
            int m = h.length;
            int[][] next = new int[2 * m][2 * m];
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < m; j++) {
                    next[i][j] = h[i][j];
                    next[i][j + m] = h[i][j];
                    next[i + m][j] = h[i][j];
                    next[i + m][j + m] = -h[i][j];
                }
            }
            h = next;
        }
        return h;
    }

    @Test
    void matrixIsUpstreamsBlockRecursion() {
        for (int n = 1; n <= 256; n *= 2) {
            assertThat(ExactHadamard.ofOrder(n).matrix()).as("order %d", n).isDeepEqualTo(blockRecursion(n));
        }
    }

    @Test
    void applyEqualsTheNaiveExactProductIncludingSubnormalAndHugeValues() {
        Random rnd = new Random(11);
        for (int n : new int[] {1, 2, 64, 128}) {
            int[][] h = blockRecursion(n);
            for (int trial = 0; trial < 20; trial++) {
                float[] x = new float[n];
                for (int i = 0; i < n; i++) {
                    x[i] = switch (rnd.nextInt(4)) {
                        case 0 -> (float) rnd.nextGaussian();
                        case 1 -> Float.intBitsToFloat(rnd.nextInt(1 << 23)) * (rnd.nextBoolean() ? 1 : -1);
                        case 2 -> (float) (rnd.nextDouble() * 3.4e38) * (rnd.nextBoolean() ? 1 : -1);
                        default -> 0f;
                    };
                }
                BigDecimal[] got = ExactHadamard.ofOrder(n).apply(x);
                for (int j = 0; j < n; j++) {
                    BigDecimal expected = BigDecimal.ZERO;
                    // x @ H: column j of H
                    for (int i = 0; i < n; i++) expected = expected.add(new BigDecimal(x[i]).multiply(BigDecimal.valueOf(h[i][j])));
                    assertThat(got[j]).as("n %d element %d", n, j).isEqualByComparingTo(expected);
                }
            }
        }
    }

    @Test
    void transformTwiceIsOrderTimesIdentity() {
        Random rnd = new Random(12);
        ExactHadamard h = ExactHadamard.ofOrder(128);
        BigInteger[] v = new BigInteger[128];
        for (int i = 0; i < v.length; i++) v[i] = new BigInteger(200, rnd).subtract(BigInteger.ONE.shiftLeft(199));
        BigInteger[] twice = h.transform(h.transform(v));
        for (int i = 0; i < v.length; i++) assertThat(twice[i]).isEqualTo(v[i].shiftLeft(7));
    }

    @Test
    void refusesBadOrdersAndNonFiniteInput() {
        assertThatThrownBy(() -> ExactHadamard.ofOrder(96)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ExactHadamard.ofOrder(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ExactHadamard.ofOrder(2).apply(new float[] {1f, Float.NaN}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("element 1");
        assertThatThrownBy(() -> ExactHadamard.ofOrder(4).apply(new float[2])).isInstanceOf(IllegalArgumentException.class);
    }
}
