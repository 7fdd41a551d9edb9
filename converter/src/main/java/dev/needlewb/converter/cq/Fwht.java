package dev.needlewb.converter.cq;

import dev.needlewb.core.simd.VectorWidth;
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
 * stages per pass over memory. Sizes below one vector fall back to scalar butterflies. Every output
 * is the same chain of butterflies at every vector width, so the same bits.
 */
public final class Fwht {
    private static final VectorSpecies<Double> D = VectorWidth.DOUBLES;
    private static final VectorSpecies<Float> F = VectorWidth.FLOATS;
    /** Double lanes (2, 4 or 8) and float lanes (4, 8 or 16): strides below these run inside one vector. */
    private static final int DOUBLE_LANES = D.length();
    private static final int FLOAT_LANES = F.length();
    /**
     * {@code D_PARTNER<s>}: each lane's butterfly partner at stride s (lane ^ s); {@code D_UPPER<s>}: the
     * lanes holding the second operand of their butterfly; null where s is not below the lane count.
     * Fields, not arrays: C2 compiles a shuffle or mask to SIMD only when it knows its class, which an
     * array element hides.
     */
    private static final VectorShuffle<Double> D_PARTNER1 = partner(D, 1), D_PARTNER2 = partner(D, 2), D_PARTNER4 = partner(D, 4);
    private static final VectorMask<Double> D_UPPER1 = upper(D, 1), D_UPPER2 = upper(D, 2), D_UPPER4 = upper(D, 4);
    private static final VectorShuffle<Float> F_PARTNER1 = partner(F, 1), F_PARTNER2 = partner(F, 2),
            F_PARTNER4 = partner(F, 4), F_PARTNER8 = partner(F, 8);
    private static final VectorMask<Float> F_UPPER1 = upper(F, 1), F_UPPER2 = upper(F, 2), F_UPPER4 = upper(F, 4),
            F_UPPER8 = upper(F, 8);

    private Fwht() {}

    /** {@code (float) (1 / sqrt(n))}: the magnitude of every entry of upstream's float32 Hadamard. */
    public static float scale(int n) {
        requirePowerOfTwo(n);
        return (float) (1.0 / Math.sqrt(n));
    }

    /** Unnormalized transform of {@code a[off, off + n)}, n a power of two. */
    public static void unnormalized(double[] a, int off, int n) {
        requirePowerOfTwo(n);
        int lanes = DOUBLE_LANES;
        if (n < lanes) {
            for (int h = 1; h < n; h <<= 1) scalarStage(a, off, n, h);
            return;
        }
        if (lanes == 2) {
            // C2 on x86 compiles neither a 2-lane double shuffle nor a masked negation (measured 100x
            // slower in Java): the one in-vector stage, stride 1, runs as scalar butterflies instead.
            scalarStage(a, off, n, 1);
        } else {
            for (int i = off; i < off + n; i += lanes) {
                DoubleVector v = DoubleVector.fromArray(D, a, i);
                v = v.rearrange(D_PARTNER1).add(v.lanewise(VectorOperators.NEG, D_UPPER1));
                v = v.rearrange(D_PARTNER2).add(v.lanewise(VectorOperators.NEG, D_UPPER2));
                if (lanes > 4) v = v.rearrange(D_PARTNER4).add(v.lanewise(VectorOperators.NEG, D_UPPER4));
                v.intoArray(a, i);
            }
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
        int lanes = FLOAT_LANES;
        if (n < lanes) {
            for (int h = 1; h < n; h <<= 1) scalarStage(a, off, n, h);
            return;
        }
        for (int i = off; i < off + n; i += lanes) {
            FloatVector v = FloatVector.fromArray(F, a, i);
            v = v.rearrange(F_PARTNER1).add(v.lanewise(VectorOperators.NEG, F_UPPER1));
            v = v.rearrange(F_PARTNER2).add(v.lanewise(VectorOperators.NEG, F_UPPER2));
            if (lanes > 4) v = v.rearrange(F_PARTNER4).add(v.lanewise(VectorOperators.NEG, F_UPPER4));
            if (lanes > 8) v = v.rearrange(F_PARTNER8).add(v.lanewise(VectorOperators.NEG, F_UPPER8));
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

    private static <E> VectorShuffle<E> partner(VectorSpecies<E> species, int stride) {
        return stride < species.length() ? VectorShuffle.fromOp(species, lane -> lane ^ stride) : null;
    }

    private static <E> VectorMask<E> upper(VectorSpecies<E> species, int stride) {
        if (stride >= species.length()) return null;
        boolean[] upper = new boolean[species.length()];
        for (int lane = 0; lane < upper.length; lane++) upper[lane] = (lane & stride) != 0;
        return VectorMask.fromArray(species, upper, 0);
    }

    private static void requirePowerOfTwo(int n) {
        if (n <= 0 || Integer.bitCount(n) != 1) {
            throw new IllegalArgumentException("Walsh-Hadamard size must be a power of two, got " + n);
        }
    }
}
