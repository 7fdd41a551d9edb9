package dev.needlewb.converter.cq;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The structured kernels (shared chains, sign flips, halved even/odd) against the plain
 * definition of each BLAS summation order: scalar {@link Math#fma} chains over the float32
 * Hadamard entries, one per output. Equality is bit for bit (raw bits, so signed zeros count),
 * on inputs that provoke exact cancellations (few distinct values, as dequantization feeds it),
 * zeros, subnormals and large magnitudes.
 */
@Tag("width")
@Tag("kernel")
class HadamardMatmulTest {
    private static final int GROUPS = 1500;

    @ParameterizedTest
    @CsvSource({
        "64, GEMV_BLOCKS_OF_8", "64, EVEN_ODD", "64, SEQUENTIAL", "64, EVEN_ODD_EDGES",
        "128, GEMV_BLOCKS_OF_8", "128, EVEN_ODD", "128, SEQUENTIAL", "128, EVEN_ODD_EDGES",
    })
    void everyOrderEqualsItsScalarDefinition(int n, NumpyMatmulOrder order) {
        HadamardMatmul kernel = new HadamardMatmul(n);
        SplittableRandom random = new SplittableRandom(n * 31L + order.ordinal());
        float[] a = new float[n];
        float[] got = new float[n];
        for (int g = 0; g < GROUPS; g++) {
            fill(a, g % 6, random);
            kernel.multiply(a, 0, order, got, 0);
            float[] want = definition(a, order);
            for (int j = 0; j < n; j++) {
                assertThat(Float.floatToRawIntBits(got[j]))
                        .as("group %d (kind %d), column %d: %s vs %s", g, g % 6, j, got[j], want[j])
                        .isEqualTo(Float.floatToRawIntBits(want[j]));
            }
        }
    }

    /** Six kinds of input: codebook-like, gaussian, sparse, all zero, subnormal, large. */
    private static void fill(float[] a, int kind, SplittableRandom random) {
        float[] levels = {-0.133f, -0.0399f, 0.04f, 0.1334f};
        float norm = (float) (random.nextDouble() * 4);
        for (int k = 0; k < a.length; k++) {
            a[k] = switch (kind) {
                case 0 -> levels[random.nextInt(4)] * norm;
                case 1 -> (float) random.nextGaussian();
                case 2 -> random.nextInt(8) == 0 ? (float) random.nextGaussian() : (random.nextBoolean() ? 0f : -0f);
                case 3 -> 0f;
                case 4 -> (float) (random.nextGaussian() * 1e-41);
                default -> (float) (random.nextGaussian() * 1e30);
            };
        }
    }

    private static float[] definition(float[] a, NumpyMatmulOrder order) {
        int n = a.length;
        float s = (float) (1.0 / Math.sqrt(n));
        float[] y = new float[n];
        for (int j = 0; j < n; j++) {
            boolean edge = j < NumpyMatmulOrder.EDGE_COLUMNS || j >= n - NumpyMatmulOrder.EDGE_COLUMNS;
            y[j] = switch (order) {
                case GEMV_BLOCKS_OF_8 -> gemv(a, j, s);
                case EVEN_ODD -> evenOdd(a, j, s);
                case SEQUENTIAL -> sequential(a, j, s);
                case EVEN_ODD_EDGES -> edge ? evenOdd(a, j, s) : sequential(a, j, s);
            };
        }
        return y;
    }

    private static float entry(int k, int j, float s) {
        return (Integer.bitCount(k & j) & 1) == 0 ? s : -s;
    }

    /** sgemv: per block of 8 k an FMA chain from zero, added to the output. */
    private static float gemv(float[] a, int j, float s) {
        float y = 0f;
        for (int k0 = 0; k0 < a.length; k0 += 8) {
            float t = 0f;
            for (int k = k0; k < k0 + 8; k++) t = Math.fma(a[k], entry(k, j, s), t);
            y += t;
        }
        return y;
    }

    /** sgemm 8x4 kernel: even and odd k in two chains, added, stored as {@code acc + 0}. */
    private static float evenOdd(float[] a, int j, float s) {
        float even = 0f, odd = 0f;
        for (int k = 0; k < a.length; k++) {
            if (k % 2 == 0) even = Math.fma(a[k], entry(k, j, s), even);
            else odd = Math.fma(a[k], entry(k, j, s), odd);
        }
        return (even + odd) + 0f;
    }

    /** sgemm narrow kernels: one chain, stored as {@code acc + 0}. */
    private static float sequential(float[] a, int j, float s) {
        float c = 0f;
        for (int k = 0; k < a.length; k++) c = Math.fma(a[k], entry(k, j, s), c);
        return c + 0f;
    }
}
