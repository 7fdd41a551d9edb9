package dev.needlewb.engine.kernel;

import jdk.incubator.vector.FloatVector;
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

    private Hadamard() {}

    /** Transforms {@code x[off, off + n)} in place; {@code n} must be a power of two. */
    public static void transform(float[] x, int off, int n) {
        float scale = (float) (1.0 / Math.sqrt(n));
        if (n < Lanes.LOGICAL) {
            scalar(x, off, n, scale);
            return;
        }
        for (int i = off; i < off + n; i += LANES) {
            // Butterflies inside one vector: lane i with i ^ span, the upper lane taking swapped - self
            // (written out, not a helper: see Lanes on vectors crossing calls).
            FloatVector v = FloatVector.fromArray(F, x, i), w = v.rearrange(Lanes.SWAP1);
            v = v.add(w).blend(w.sub(v), Lanes.UPPER1);
            w = v.rearrange(Lanes.SWAP2);
            v = v.add(w).blend(w.sub(v), Lanes.UPPER2);
            if (LANES >= 8) {
                w = v.rearrange(Lanes.SWAP4);
                v = v.add(w).blend(w.sub(v), Lanes.UPPER4);
            }
            if (LANES >= 16) {
                w = v.rearrange(Lanes.SWAP8);
                v = v.add(w).blend(w.sub(v), Lanes.UPPER8);
            }
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
}
