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
 * path, so the vector and scalar forms, and every vector width, give the same bits. Blocks of at
 * least 16 run on vectors of W lanes: butterflies of span W and more pair whole vectors; spans below
 * W pair lanes of one vector through a lane swap, the upper lane of each pair taking
 * {@code swapped - self}.
 */
public final class Hadamard {
    private static final VectorSpecies<Float> F = Lanes.F;
    private static final int LANES = Lanes.W;
    /** {@code UPPER[s]}: the lanes whose index has bit {@code s} set, for spans {@code s < W}. */
    private static final VectorMask<Float>[] UPPER = uppers();

    private Hadamard() {}

    /** Transforms {@code x[off, off + n)} in place; {@code n} must be a power of two. */
    public static void transform(float[] x, int off, int n) {
        float scale = (float) (1.0 / Math.sqrt(n));
        if (n < Lanes.LOGICAL) {
            scalar(x, off, n, scale);
            return;
        }
        for (int i = off; i < off + n; i += LANES) {
            FloatVector v = FloatVector.fromArray(F, x, i);
            for (int span = 1; span < LANES; span <<= 1) v = inLanes(v, Lanes.swap(span), UPPER[span]);
            v.intoArray(x, i);
        }
        for (int half = LANES; half < n; half <<= 1) {
            for (int block = off; block < off + n; block += half << 1) {
                for (int i = block; i < block + half; i += LANES) {
                    FloatVector a = FloatVector.fromArray(F, x, i);
                    FloatVector b = FloatVector.fromArray(F, x, i + half);
                    a.add(b).intoArray(x, i);
                    a.sub(b).intoArray(x, i + half);
                }
            }
        }
        for (int i = off; i < off + n; i += LANES) FloatVector.fromArray(F, x, i).mul(scale).intoArray(x, i);
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

    @SuppressWarnings("unchecked")
    private static VectorMask<Float>[] uppers() {
        VectorMask<Float>[] m = new VectorMask[LANES];
        for (int span = 1; span < LANES; span <<= 1) {
            boolean[] bits = new boolean[LANES];
            for (int i = 0; i < LANES; i++) bits[i] = (i & span) != 0;
            m[span] = VectorMask.fromArray(F, bits, 0);
        }
        return m;
    }
}
