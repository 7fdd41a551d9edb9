package dev.needlewb.engine.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * In-place orthonormal Walsh-Hadamard transform in float32 (Sylvester order, so the matrix is
 * symmetric and its own inverse): {@code x <- (H / sqrt(n)) x} over a power-of-two block.
 *
 * <p>Every butterfly computes {@code a + b} and {@code a - b} of the same two values whatever the
 * path, so the vector and scalar forms give the same bits. Blocks of at least 16 run on 16-lane
 * vectors: butterflies of span 16 and more pair whole vectors; spans 1 to 8 pair lanes of one
 * vector through a lane swap, the upper lane of each pair taking {@code swapped - self}. The lane
 * stages assume the 16 lanes of {@link Lanes#F16}.
 */
public final class Hadamard {
    private static final VectorSpecies<Float> F16 = Lanes.F16;
    private static final int LANES = F16.length();
    private static final VectorShuffle<Float> SWAP1 = swap(1), SWAP2 = swap(2), SWAP4 = swap(4), SWAP8 = swap(8);
    private static final VectorMask<Float> UPPER1 = upper(1), UPPER2 = upper(2), UPPER4 = upper(4), UPPER8 = upper(8);

    private Hadamard() {}

    /** Transforms {@code x[off, off + n)} in place; {@code n} must be a power of two. */
    public static void transform(float[] x, int off, int n) {
        float scale = (float) (1.0 / Math.sqrt(n));
        if (n < LANES) {
            scalar(x, off, n, scale);
            return;
        }
        for (int i = off; i < off + n; i += LANES) {
            FloatVector v = FloatVector.fromArray(F16, x, i);
            v = inLanes(inLanes(inLanes(inLanes(v, SWAP1, UPPER1), SWAP2, UPPER2), SWAP4, UPPER4), SWAP8, UPPER8);
            v.intoArray(x, i);
        }
        for (int half = LANES; half < n; half <<= 1) {
            for (int block = off; block < off + n; block += half << 1) {
                for (int i = block; i < block + half; i += LANES) {
                    FloatVector a = FloatVector.fromArray(F16, x, i);
                    FloatVector b = FloatVector.fromArray(F16, x, i + half);
                    a.add(b).intoArray(x, i);
                    a.sub(b).intoArray(x, i + half);
                }
            }
        }
        for (int i = off; i < off + n; i += LANES) FloatVector.fromArray(F16, x, i).mul(scale).intoArray(x, i);
    }

    private static void scalar(float[] x, int off, int n, float scale) {
        for (int half = 1; half < n; half <<= 1) {
            for (int block = off; block < off + n; block += half << 1) {
                for (int i = block; i < block + half; i++) {
                    float a = x[i];
                    float b = x[i + half];
                    x[i] = a + b;
                    x[i + half] = a - b;
                }
            }
        }
        for (int i = off; i < off + n; i++) x[i] *= scale;
    }

    public static boolean isPowerOfTwo(int n) {
        return n > 0 && (n & (n - 1)) == 0;
    }

    /** One butterfly stage between lanes {@code i} and {@code i ^ span} of one vector. */
    private static FloatVector inLanes(FloatVector v, VectorShuffle<Float> swap, VectorMask<Float> upper) {
        FloatVector w = v.rearrange(swap);
        return v.add(w).blend(w.sub(v), upper);
    }

    private static VectorShuffle<Float> swap(int span) {
        return VectorShuffle.fromOp(F16, i -> i ^ span);
    }

    private static VectorMask<Float> upper(int span) {
        boolean[] bits = new boolean[LANES];
        for (int i = 0; i < LANES; i++) bits[i] = (i & span) != 0;
        return VectorMask.fromArray(F16, bits, 0);
    }
}
