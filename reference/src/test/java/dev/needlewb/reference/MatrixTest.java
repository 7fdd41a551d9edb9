package dev.needlewb.reference;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("width")
@Tag("kernel")
class MatrixTest {
    @Test
    void productsMatchPlainLoopsExactlyOnSmallIntegers() {
        // Small integers: every partial sum is exact in float64, so any summation order gives the same bits.
        int in = 5, out = 3, rows = 4;
        double[] w = new double[in * out];
        for (int i = 0; i < w.length; i++) w[i] = (i * 7 % 11) - 5;
        double[] x = new double[rows * in];
        for (int i = 0; i < x.length; i++) x[i] = (i * 5 % 13) - 6;
        Matrix m = new Matrix(w, in, out);

        double[] y = m.apply(x, rows);
        double[] expected = new double[rows * out];
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < out; c++)
                for (int k = 0; k < in; k++) expected[r * out + c] += x[r * in + k] * w[k * out + c];
        assertThat(y).containsExactly(expected);

        double[] z = m.applyTransposed(y, rows);
        double[] expectedT = new double[rows * in];
        for (int r = 0; r < rows; r++)
            for (int k = 0; k < in; k++)
                for (int c = 0; c < out; c++) expectedT[r * in + k] += y[r * out + c] * w[k * out + c];
        assertThat(z).containsExactly(expectedT);
    }

    @Test
    void singleRowsTakeTheMatrixVectorPathWithTheSameResult() {
        // integers again: exact in any order, so dgemv (one row) must equal dgemm (rows) bit for bit
        int in = 9, out = 6;
        double[] w = new double[in * out];
        for (int i = 0; i < w.length; i++) w[i] = (i * 5 % 9) - 4;
        Matrix m = new Matrix(w, in, out);
        double[] x = new double[2 * in];
        for (int i = 0; i < x.length; i++) x[i] = (i * 3 % 7) - 3;
        double[] both = m.apply(x, 2);
        assertThat(m.apply(java.util.Arrays.copyOf(x, in), 1)).containsExactly(java.util.Arrays.copyOf(both, out));
        double[] y = java.util.Arrays.copyOf(both, out);
        double[] back = m.applyTransposed(java.util.Arrays.copyOf(both, 2 * out), 2);
        assertThat(m.applyTransposed(y, 1)).containsExactly(java.util.Arrays.copyOf(back, in));
    }

    @Test
    void floatRowsAgreeWithDgemvAndRefuseNonFloatWeights() {
        int in = 75, out = 13; // not multiples of the vector length: tails are exercised
        java.util.SplittableRandom r = new java.util.SplittableRandom(5);
        double[] w = new double[in * out];
        for (int i = 0; i < w.length; i++) w[i] = (float) r.nextGaussian();
        double[] x = new double[in];
        for (int i = 0; i < in; i++) x[i] = r.nextGaussian();
        double[] viaFloats = FloatRows.ofExact(w, in, out).apply(x);
        double[] viaBlas = Blas.multiply(x, 1, in, w, out, false);
        for (int o = 0; o < out; o++) {
            // same float64 products, another summation order: a few ulps of the row's magnitude
            double scale = 0;
            for (int i = 0; i < in; i++) scale += Math.abs(x[i] * w[i * out + o]);
            assertThat(Math.abs(viaFloats[o] - viaBlas[o])).isLessThanOrEqualTo(1e-14 * scale);
        }
        w[7] = 0.1; // not a float32
        assertThat(FloatRows.ofExact(w, in, out)).isNull();
    }

    @Test
    void blasRunsWithTheConfiguredThreadCount() {
        new Matrix(new double[] {1}, 1, 1).apply(new double[] {2}, 1);
        assertThat(org.bytedeco.openblas.presets.openblas_nolapack.blas_get_num_threads()).isEqualTo(Blas.THREADS);
    }
}
