package dev.needlewb.converter.cq;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * In-place fast Walsh-Hadamard transform in Sylvester order, the order of upstream's
 * {@code H_2n = [[H, H], [H, -H]]}: {@code y[j] = sum_i (-1)^popcount(i & j) x[i]}, so
 * {@code y = x @ H} (H is symmetric). The normalized forms multiply by the float32 entry
 * magnitude of upstream's {@code (H / sqrt(n)).astype(float32)}, see {@link #scale(int)}.
 *
 * <p>Strides inside one vector become lane shuffles ({@code y = partner + (-x on upper lanes)}:
 * the same sums and differences as the butterflies, so the same rounding); longer strides run two
 * stages per pass over memory. Sizes below one vector fall back to scalar butterflies.
 */
public final class Fwht {
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_PREFERRED;
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    /** Strides 1, 2, 4 ... below the vector length run inside one vector. */
    private static final int IN_VECTOR_STAGES = Integer.numberOfTrailingZeros(D.length());
    private static final int F_IN_VECTOR_STAGES = Integer.numberOfTrailingZeros(F.length());
    /** Per in-vector stage: each lane's butterfly partner (lane ^ stride). */
    private static final VectorShuffle<Double>[] PARTNER = partners(D);
    private static final VectorShuffle<Float>[] F_PARTNER = partners(F);
    /** Per in-vector stage: the lanes holding the second operand of their butterfly. */
    private static final VectorMask<Double>[] UPPER = uppers(D);
    private static final VectorMask<Float>[] F_UPPER = uppers(F);

    private Fwht() {}

    /** {@code (float) (1 / sqrt(n))}: the magnitude of every entry of upstream's float32 Hadamard. */
    public static float scale(int n) {
        requirePowerOfTwo(n);
        return (float) (1.0 / Math.sqrt(n));
    }

    /** Unnormalized transform of {@code a[off, off + n)}, n a power of two. */
    public static void unnormalized(double[] a, int off, int n) {
        requirePowerOfTwo(n);
        int lanes = D.length();
        if (n < lanes) {
            for (int h = 1; h < n; h <<= 1) scalarStage(a, off, n, h);
            return;
        }
        for (int i = off; i < off + n; i += lanes) {
            DoubleVector v = DoubleVector.fromArray(D, a, i);
            for (int s = 0; s < IN_VECTOR_STAGES; s++) {
                v = v.rearrange(PARTNER[s]).add(v.lanewise(VectorOperators.NEG, UPPER[s]));
            }
            v.intoArray(a, i);
        }
        int h = lanes;
        for (; 4 * h <= n; h <<= 2) {
            for (int block = off; block < off + n; block += 4 * h) {
                for (int i = block; i < block + h; i += lanes) radix4(a, i, h);
            }
        }
        if (h < n) {
            for (int i = off; i < off + h; i += lanes) {
                DoubleVector x = DoubleVector.fromArray(D, a, i);
                DoubleVector y = DoubleVector.fromArray(D, a, i + h);
                x.add(y).intoArray(a, i);
                x.sub(y).intoArray(a, i + h);
            }
        }
    }

    /** Two butterfly stages (strides h and 2h) on the four vectors at i, i+h, i+2h, i+3h. */
    private static void radix4(double[] a, int i, int h) {
        DoubleVector x0 = DoubleVector.fromArray(D, a, i);
        DoubleVector x1 = DoubleVector.fromArray(D, a, i + h);
        DoubleVector x2 = DoubleVector.fromArray(D, a, i + 2 * h);
        DoubleVector x3 = DoubleVector.fromArray(D, a, i + 3 * h);
        DoubleVector s01 = x0.add(x1);
        DoubleVector d01 = x0.sub(x1);
        DoubleVector s23 = x2.add(x3);
        DoubleVector d23 = x2.sub(x3);
        s01.add(s23).intoArray(a, i);
        d01.add(d23).intoArray(a, i + h);
        s01.sub(s23).intoArray(a, i + 2 * h);
        d01.sub(d23).intoArray(a, i + 3 * h);
    }

    /** Unnormalized transform of {@code a[off, off + n)}, n a power of two, in float32 arithmetic. */
    public static void unnormalized(float[] a, int off, int n) {
        requirePowerOfTwo(n);
        int lanes = F.length();
        if (n < lanes) {
            for (int h = 1; h < n; h <<= 1) scalarStage(a, off, n, h);
            return;
        }
        for (int i = off; i < off + n; i += lanes) {
            FloatVector v = FloatVector.fromArray(F, a, i);
            for (int s = 0; s < F_IN_VECTOR_STAGES; s++) {
                v = v.rearrange(F_PARTNER[s]).add(v.lanewise(VectorOperators.NEG, F_UPPER[s]));
            }
            v.intoArray(a, i);
        }
        int h = lanes;
        for (; 4 * h <= n; h <<= 2) {
            for (int block = off; block < off + n; block += 4 * h) {
                for (int i = block; i < block + h; i += lanes) radix4(a, i, h);
            }
        }
        if (h < n) {
            for (int i = off; i < off + h; i += lanes) {
                FloatVector x = FloatVector.fromArray(F, a, i);
                FloatVector y = FloatVector.fromArray(F, a, i + h);
                x.add(y).intoArray(a, i);
                x.sub(y).intoArray(a, i + h);
            }
        }
    }

    private static void radix4(float[] a, int i, int h) {
        FloatVector x0 = FloatVector.fromArray(F, a, i);
        FloatVector x1 = FloatVector.fromArray(F, a, i + h);
        FloatVector x2 = FloatVector.fromArray(F, a, i + 2 * h);
        FloatVector x3 = FloatVector.fromArray(F, a, i + 3 * h);
        FloatVector s01 = x0.add(x1);
        FloatVector d01 = x0.sub(x1);
        FloatVector s23 = x2.add(x3);
        FloatVector d23 = x2.sub(x3);
        s01.add(s23).intoArray(a, i);
        d01.add(d23).intoArray(a, i + h);
        s01.sub(s23).intoArray(a, i + 2 * h);
        d01.sub(d23).intoArray(a, i + 3 * h);
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

    @SuppressWarnings("unchecked")
    private static <E> VectorShuffle<E>[] partners(VectorSpecies<E> species) {
        VectorShuffle<E>[] out = new VectorShuffle[Integer.numberOfTrailingZeros(species.length())];
        for (int s = 0; s < out.length; s++) {
            int stride = 1 << s;
            out[s] = VectorShuffle.fromOp(species, lane -> lane ^ stride);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static <E> VectorMask<E>[] uppers(VectorSpecies<E> species) {
        VectorMask<E>[] out = new VectorMask[Integer.numberOfTrailingZeros(species.length())];
        for (int s = 0; s < out.length; s++) {
            boolean[] upper = new boolean[species.length()];
            for (int lane = 0; lane < upper.length; lane++) upper[lane] = (lane & (1 << s)) != 0;
            out[s] = VectorMask.fromArray(species, upper, 0);
        }
        return out;
    }

    private static void requirePowerOfTwo(int n) {
        if (n <= 0 || Integer.bitCount(n) != 1) {
            throw new IllegalArgumentException("Walsh-Hadamard size must be a power of two, got " + n);
        }
    }
}
