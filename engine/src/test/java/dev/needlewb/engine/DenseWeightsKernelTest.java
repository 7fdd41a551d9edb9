package dev.needlewb.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The batch GEMM kernel on one packed panel against float64 sums, for a row block, single rows and a cut k range. */
@Tag("width")
@Tag("kernel")
class DenseWeightsKernelTest {
    private static final int P = DenseWeights.PANEL, IN = 37, ROWS = DenseWeights.BLOCK + 5;

    @Test
    void blockAndRowMatchFloat64SumsOverTheirKRange() {
        Random random = new Random(11);
        float[] x = new float[ROWS * IN];
        for (int i = 0; i < x.length; i++) x[i] = random.nextFloat() * 2 - 1;
        float[] w = new float[IN * P];
        for (int i = 0; i < w.length; i++) w[i] = random.nextFloat() * 2 - 1;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment packed = arena.allocate((long) w.length * Float.BYTES, 64);
            MemorySegment.copy(w, 0, packed, ValueLayout.JAVA_FLOAT, 0, w.length);
            for (int kEnd : new int[] {IN, 20}) {
                // Output rows are one panel wide plus a margin that must stay untouched.
                int stride = P + 3;
                float[] y = new float[ROWS * stride];
                DenseWeights.block(x, 0, IN, packed, 0, kEnd, y, 0, stride);
                for (int r = DenseWeights.BLOCK; r < ROWS; r++) DenseWeights.row(x, r * IN, packed, 0, kEnd, y, r * stride);
                for (int r = 0; r < ROWS; r++) {
                    for (int j = 0; j < P; j++) {
                        double sum = 0, magnitude = 0;
                        for (int k = 0; k < kEnd; k++) {
                            sum += (double) x[r * IN + k] * w[k * P + j];
                            magnitude += Math.abs((double) x[r * IN + k] * w[k * P + j]);
                        }
                        // A float32 FMA chain of kEnd <= 37 terms: each step rounds once, so the error
                        // stays below kEnd ulps of the running magnitude (37 * 2^-24 ~ 2.2e-6 relative).
                        assertThat(Math.abs(y[r * stride + j] - sum)).as("row %d col %d k<%d", r, j, kEnd)
                                .isLessThanOrEqualTo(magnitude * kEnd * Math.ulp(1f));
                    }
                    for (int j = P; j < stride; j++) assertThat(y[r * stride + j]).isZero();
                }
            }
        }
    }
}
