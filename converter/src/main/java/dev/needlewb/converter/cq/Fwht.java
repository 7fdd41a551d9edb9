package dev.needlewb.converter.cq;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * In-place fast Walsh-Hadamard transform in Sylvester order, the order of upstream's
 * {@code H_2n = [[H, H], [H, -H]]}: {@code y[j] = sum_i (-1)^popcount(i & j) x[i]}, so
 * {@code y = x @ H} (H is symmetric). The normalized forms multiply by the float32 entry
 * magnitude of upstream's {@code (H / sqrt(n)).astype(float32)}, see {@link #scale(int)}.
 *
 * <p>Butterflies whose stride reaches a full vector run on the Vector API; the first strides
 * inside one vector are scalar.
 */
public final class Fwht {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_256;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_256;

    private Fwht() {}

    /** {@code (float) (1 / sqrt(n))}: the magnitude of every entry of upstream's float32 Hadamard. */
    public static float scale(int n) {
        requirePowerOfTwo(n);
        return (float) (1.0 / Math.sqrt(n));
    }

    /** Unnormalized transform of {@code a[off, off + n)}, n a power of two. */
    public static void unnormalized(double[] a, int off, int n) {
        requirePowerOfTwo(n);
        int h = 1;
        for (; h < n && h < D.length(); h <<= 1) scalarStage(a, off, n, h);
        for (; h < n; h <<= 1) {
            for (int block = off; block < off + n; block += 2 * h) {
                for (int i = block; i < block + h; i += D.length()) {
                    DoubleVector x = DoubleVector.fromArray(D, a, i);
                    DoubleVector y = DoubleVector.fromArray(D, a, i + h);
                    x.add(y).intoArray(a, i);
                    x.sub(y).intoArray(a, i + h);
                }
            }
        }
    }

    /** Unnormalized transform of {@code a[off, off + n)}, n a power of two, in float32 arithmetic. */
    public static void unnormalized(float[] a, int off, int n) {
        requirePowerOfTwo(n);
        int h = 1;
        for (; h < n && h < F.length(); h <<= 1) scalarStage(a, off, n, h);
        for (; h < n; h <<= 1) {
            for (int block = off; block < off + n; block += 2 * h) {
                for (int i = block; i < block + h; i += F.length()) {
                    FloatVector x = FloatVector.fromArray(F, a, i);
                    FloatVector y = FloatVector.fromArray(F, a, i + h);
                    x.add(y).intoArray(a, i);
                    x.sub(y).intoArray(a, i + h);
                }
            }
        }
    }

    /** {@code a[off, off + n) @ (H / sqrt(n))} with upstream's float32 entries, in float64. */
    public static void normalized(double[] a, int off, int n) {
        unnormalized(a, off, n);
        double s = scale(n);
        for (int i = off; i < off + n; i++) a[i] *= s;
    }

    /** {@code a[off, off + n) @ (H / sqrt(n))} with upstream's float32 entries, in float32. */
    public static void normalized(float[] a, int off, int n) {
        unnormalized(a, off, n);
        float s = scale(n);
        for (int i = off; i < off + n; i++) a[i] *= s;
    }

    private static void scalarStage(double[] a, int off, int n, int h) {
        for (int block = off; block < off + n; block += 2 * h) {
            for (int i = block; i < block + h; i++) {
                double x = a[i];
                double y = a[i + h];
                a[i] = x + y;
                a[i + h] = x - y;
            }
        }
    }

    private static void scalarStage(float[] a, int off, int n, int h) {
        for (int block = off; block < off + n; block += 2 * h) {
            for (int i = block; i < block + h; i++) {
                float x = a[i];
                float y = a[i + h];
                a[i] = x + y;
                a[i + h] = x - y;
            }
        }
    }

    private static void requirePowerOfTwo(int n) {
        if (n <= 0 || Integer.bitCount(n) != 1) {
            throw new IllegalArgumentException("Walsh-Hadamard size must be a power of two, got " + n);
        }
    }
}
