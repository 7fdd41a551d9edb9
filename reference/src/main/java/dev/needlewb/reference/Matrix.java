package dev.needlewb.reference;

import org.nd4j.linalg.api.ndarray.INDArray;

/**
 * A dense float64 weight matrix in the Flax row-vector layout: {@code [in, out]}, applied as
 * {@code y = x @ W}. The values live off-heap in ND4J for dgemm.
 */
final class Matrix {
    private final int in;
    private final int out;
    private final INDArray values;

    Matrix(double[] values, int in, int out) {
        this.in = in;
        this.out = out;
        this.values = Blas.matrix(values, in, out);
    }

    int in() {
        return in;
    }

    int out() {
        return out;
    }

    /** {@code x [rows, in] @ W} as a row-major [rows, out] array. */
    double[] apply(double[] x, int rows) {
        return Blas.multiply(x, rows, in, values, false);
    }

    /** {@code x [rows, out] @ W^T} as a row-major [rows, in] array (the tied-embedding logits). */
    double[] applyTransposed(double[] x, int rows) {
        return Blas.multiply(x, rows, out, values, true);
    }
}
