package dev.needlewb.reference;

/**
 * A dense float64 weight matrix in the Flax row-vector layout: {@code [in, out]}, applied as
 * {@code y = x @ W}, by OpenBLAS on the Java array itself ({@link Blas}: kept, not copied, so the
 * caller must not change it);
 * single rows (decode steps) use a float copy when the weights are all floats (see {@link FloatRows}),
 * made at the first single-row product: a full-sequence forward never needs it.
 */
public final class Matrix {
    private final int in;
    private final int out;
    private final double[] values;
    /** Set once with {@link #singleRowsMade}; null if some weight is not a float. */
    private volatile FloatRows singleRows;
    private volatile boolean singleRowsMade;

    public Matrix(double[] values, int in, int out) {
        if ((long) in * out != values.length) {
            throw new IllegalArgumentException("matrix [" + in + ", " + out + "] needs " + (long) in * out
                    + " values, got " + values.length);
        }
        this.in = in;
        this.out = out;
        this.values = values;
    }

    public int in() {
        return in;
    }

    public int out() {
        return out;
    }

    /** {@code x [rows, in] @ W} as a row-major [rows, out] array. */
    public double[] apply(double[] x, int rows) {
        if (rows == 1 && x.length == in) {
            FloatRows floats = singleRows();
            if (floats != null) return floats.apply(x);
        }
        return Blas.multiply(x, rows, in, values, out, false);
    }

    private FloatRows singleRows() {
        if (!singleRowsMade) {
            synchronized (this) {
                if (!singleRowsMade) {
                    singleRows = FloatRows.ofExact(values, in, out);
                    singleRowsMade = true;
                }
            }
        }
        return singleRows;
    }

    /** {@code x [rows, out] @ W^T} as a row-major [rows, in] array (the tied-embedding logits). */
    public double[] applyTransposed(double[] x, int rows) {
        return Blas.multiply(x, rows, out, values, in, true);
    }
}
