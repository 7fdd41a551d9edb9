package dev.needlewb.engine.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Tag("width")
@Tag("kernel")
class HadamardTest {

    @ParameterizedTest
    @ValueSource(ints = {4, 8, 16, 32, 128, 512})
    void equalsTheScalarButterflyBitForBitAndTheDenseMatrix(int n) {
        Random rnd = new Random(n);
        float[] x = new float[n + 3];
        for (int i = 0; i < x.length; i++) x[i] = (float) rnd.nextGaussian();
        float[] want = x.clone();
        butterflies(want, 3, n);
        float[] got = x.clone();
        Hadamard.transform(got, 3, n);
        // The same a + b and a - b of the same operands in the same stage order: no tolerance.
        assertThat(got).containsExactly(want);
        for (int r = 0; r < n; r++) {
            double dot = 0;
            for (int c = 0; c < n; c++) dot += (Integer.bitCount(r & c) % 2 == 0 ? 1 : -1) * (double) x[3 + c];
            // float32 over log2(n) <= 9 stages of sums of magnitude <= sqrt(n) * max|x|: 1e-5 absolute is ~10x margin.
            assertThat((double) got[3 + r]).isCloseTo(dot / Math.sqrt(n), org.assertj.core.data.Offset.offset(1e-5));
        }
    }

    /** The textbook in-place FWHT in float32, then the 1/sqrt(n) scale. */
    private static void butterflies(float[] x, int off, int n) {
        for (int half = 1; half < n; half <<= 1) {
            for (int block = off; block < off + n; block += 2 * half) {
                for (int i = block; i < block + half; i++) {
                    float a = x[i], b = x[i + half];
                    x[i] = a + b;
                    x[i + half] = a - b;
                }
            }
        }
        float scale = (float) (1.0 / Math.sqrt(n));
        for (int i = off; i < off + n; i++) x[i] *= scale;
    }
}
