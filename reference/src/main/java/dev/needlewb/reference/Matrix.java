package dev.needlewb.reference;

import org.bytedeco.javacpp.DoublePointer;

/**
 * A dense float64 weight matrix in the Flax row-vector layout: {@code [in, out]}, applied as
 * {@code y = x @ W}. The values live off-heap for dgemm (freed when the matrix is collected);
 * single rows (decode steps) use a float copy when the weights are all floats (see {@link FloatRows}).
 */
final class Matrix {
    private final int in;
    private final int out;
    private final DoublePointer values;
    private final FloatRows singleRows;

    Matrix(double[] values, int in, int out) {
        if ((long) in * out != values.length) {
            throw new IllegalArgumentException("matrix [" + in + ", " + out + "] needs " + (long) in * out
                    + " values, got " + values.length);
        }
        this.in = in;
        this.out = out;
        this.values = Blas.offHeap(values);
        this.singleRows = FloatRows.ofExact(values, in, out);
    }

    int in() {
        return in;
    }

    int out() {
        return out;
    }

    /** {@code x [rows, in] @ W} as a row-major [rows, out] array. */
    double[] apply(double[] x, int rows) {
        if (rows == 1 && singleRows != null && x.length == in) return singleRows.apply(x);
        return Blas.multiply(x, rows, in, values, out, false);
    }

    /** {@code x [rows, out] @ W^T} as a row-major [rows, in] array (the tied-embedding logits). */
    double[] applyTransposed(double[] x, int rows) {
        return Blas.multiply(x, rows, out, values, in, true);
    }
}
