package dev.needlewb.converter.cq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Tag("width")
@Tag("kernel")
class FwhtTest {

    /** Upstream's construction: H_1 = [1], H_2n = [[H, H], [H, -H]]. */
    private static int[][] sylvester(int n) {
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

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4, 8, 16, 32, 64, 128, 256})
    void doubleTransformIsTheProductWithUpstreamsMatrixExactlyOnIntegers(int n) {
        // Small integers keep every partial sum exact in float64, so equality must be exact.
        Random random = new Random(n);
        double[] x = new double[n + 3];
        for (int i = 0; i < x.length; i++) x[i] = random.nextInt(2001) - 1000;
        double[] y = x.clone();
        Fwht.unnormalized(y, 3, n);
        int[][] h = sylvester(n);
        for (int j = 0; j < n; j++) {
            long expected = 0;
            for (int i = 0; i < n; i++) expected += (long) x[3 + i] * h[i][j];
            assertThat(y[3 + j]).as("y[%d]", j).isEqualTo((double) expected);
        }
        assertThat(y[0]).isEqualTo(x[0]);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 8, 16, 32, 64, 128, 256})
    void floatTransformAgreesWithDoubleOnIntegers(int n) {
        // Integers below 2^24 / n keep float32 exact too.
        Random random = new Random(n);
        float[] f = new float[n];
        double[] d = new double[n];
        for (int i = 0; i < n; i++) d[i] = f[i] = random.nextInt(2001) - 1000;
        Fwht.unnormalized(f, 0, n);
        Fwht.unnormalized(d, 0, n);
        for (int i = 0; i < n; i++) assertThat((double) f[i]).isEqualTo(d[i]);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4, 8, 16, 32, 64, 128, 256})
    void everyOutputIsTheScalarButterflyChainBitForBit(int n) {
        // Gaussian inputs round in every butterfly: equal bits mean the same sums in the same order,
        // whatever the vector width splits into shuffles, radix-4 passes and scalar stages.
        Random random = new Random(7L * n);
        double[] d = new double[n];
        float[] f = new float[n];
        for (int i = 0; i < n; i++) f[i] = (float) (d[i] = random.nextGaussian() * 1e3);
        double[] dWant = d.clone();
        float[] fWant = f.clone();
        for (int h = 1; h < n; h <<= 1) {
            for (int i = 0; i < n; i++) {
                if ((i & h) != 0) continue;
                double x = dWant[i], y = dWant[i + h];
                dWant[i] = x + y;
                dWant[i + h] = x - y;
                float u = fWant[i], v = fWant[i + h];
                fWant[i] = u + v;
                fWant[i + h] = u - v;
            }
        }
        Fwht.unnormalized(d, 0, n);
        Fwht.unnormalized(f, 0, n);
        assertThat(d).isEqualTo(dWant);
        assertThat(f).isEqualTo(fWant);
    }

    @Test
    void normalizedTransformIsAnInvolutionUpToRounding() {
        Random random = new Random(5);
        double[] x = new double[128];
        for (int i = 0; i < x.length; i++) x[i] = random.nextGaussian();
        double[] y = x.clone();
        Fwht.normalized(y, 0, 128);
        Fwht.normalized(y, 0, 128);
        // H/sqrt(128) with entries rounded to float32 squares to (128 * s^2) I, s = float32(1/sqrt(128)):
        // 128 s^2 differs from 1 by about 2e-8, so allow 1e-7 relative.
        for (int i = 0; i < x.length; i++) assertThat(y[i]).isCloseTo(x[i], within(1e-7 * Math.abs(x[i]) + 1e-12));
    }

    @Test
    void scaleIsUpstreamsFloat32Entry() {
        // float32(1/sqrt(128)) = 0x1.6a09e6p-4 (numpy: (H / np.sqrt(128)).astype(float32)); 1/8 exact for 64.
        assertThat(Fwht.scale(128)).isEqualTo(Float.intBitsToFloat(0x3db504f3));
        assertThat(Fwht.scale(64)).isEqualTo(0.125f);
    }

    @Test
    void refusesSizesThatAreNotPowersOfTwo() {
        assertThatThrownBy(() -> Fwht.unnormalized(new double[12], 0, 12)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Fwht.scale(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
