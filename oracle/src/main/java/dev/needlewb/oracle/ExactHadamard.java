package dev.needlewb.oracle;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * The +1/-1 Sylvester Walsh-Hadamard matrix of order {@code n} (a power of two), in the ordering
 * of the recursion {@code H(2m) = [[H(m), H(m)], [H(m), -H(m)]]} that upstream builds with
 * {@code np.block}: entry (i, j) is {@code (-1)^popcount(i & j)}. The matrix is symmetric, so
 * {@code x @ H} (upstream's row-vector rotation) and {@code H x} are the same vector.
 *
 * <p>{@link #apply} multiplies without rounding: every float is a dyadic rational, so the whole
 * vector is brought to one common power of two, transformed as integers and scaled back.
 */
public final class ExactHadamard {
    private final int order;

    private ExactHadamard(int order) {
        this.order = order;
    }

    /** The matrix of order {@code n}; {@code n} must be a power of two (1 included). */
    public static ExactHadamard ofOrder(int n) {
        if (n < 1 || Integer.bitCount(n) != 1) {
            throw new IllegalArgumentException("Hadamard order must be a power of two, got " + n);
        }
        return new ExactHadamard(n);
    }

    public int order() {
        return order;
    }

    /** Entry (row, col): +1 or -1. */
    public int sign(int row, int col) {
        if (row < 0 || row >= order || col < 0 || col >= order) {
            throw new IndexOutOfBoundsException("(" + row + ", " + col + ") outside order " + order);
        }
        return (Integer.bitCount(row & col) & 1) == 0 ? 1 : -1;
    }

    /** The whole matrix, row-major. */
    public int[][] matrix() {
        int[][] h = new int[order][order];
        for (int i = 0; i < order; i++) {
            for (int j = 0; j < order; j++) h[i][j] = sign(i, j);
        }
        return h;
    }

    /** {@code H x} computed exactly (no rounding at any step); {@code x} must be finite. */
    public BigDecimal[] apply(float[] x) {
        IntegerVector v = IntegerVector.of(x);
        BigInteger[] s = transform(v.values());
        BigDecimal[] out = new BigDecimal[order];
        for (int i = 0; i < order; i++) out[i] = new Dyadic(s[i], v.exponent()).toBigDecimal();
        return out;
    }

    /** {@code H v} for an integer vector, by the in-place butterfly (n log n exact additions). */
    BigInteger[] transform(BigInteger[] v) {
        if (v.length != order) {
            throw new IllegalArgumentException("vector length " + v.length + " != Hadamard order " + order);
        }
        BigInteger[] a = v.clone();
        for (int half = 1; half < order; half <<= 1) {
            for (int start = 0; start < order; start += 2 * half) {
                for (int i = start; i < start + half; i++) {
                    BigInteger p = a[i], q = a[i + half];
                    a[i] = p.add(q);
                    a[i + half] = p.subtract(q);
                }
            }
        }
        return a;
    }

    /**
     * A float vector written exactly as {@code values[i] * 2^exponent} with one shared exponent
     * (the smallest exponent of a nonzero element; 0 for an all-zero vector).
     */
    record IntegerVector(BigInteger[] values, int exponent) {
        static IntegerVector of(float[] x) {
            Dyadic[] d = new Dyadic[x.length];
            int e = Integer.MAX_VALUE;
            for (int i = 0; i < x.length; i++) {
                if (!Float.isFinite(x[i])) {
                    throw new IllegalArgumentException("element " + i + " is not finite: " + x[i]);
                }
                d[i] = Dyadic.of(x[i]);
                if (d[i].signum() != 0) e = Math.min(e, d[i].exponent());
            }
            if (e == Integer.MAX_VALUE) e = 0;
            BigInteger[] values = new BigInteger[x.length];
            for (int i = 0; i < x.length; i++) {
                values[i] = d[i].signum() == 0 ? BigInteger.ZERO : d[i].mantissa().shiftLeft(d[i].exponent() - e);
            }
            return new IntegerVector(values, e);
        }
    }
}
