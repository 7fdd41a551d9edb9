package dev.needlewb.engine.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/** The 16-lane float species the kernels use, and a reproducible horizontal sum. */
public final class Lanes {
    public static final VectorSpecies<Float> F16 = FloatVector.SPECIES_512;
    private static final VectorShuffle<Float> SWAP8 = VectorShuffle.fromOp(F16, i -> i ^ 8);
    private static final VectorShuffle<Float> SWAP4 = VectorShuffle.fromOp(F16, i -> i ^ 4);
    private static final VectorShuffle<Float> SWAP2 = VectorShuffle.fromOp(F16, i -> i ^ 2);
    private static final VectorShuffle<Float> SWAP1 = VectorShuffle.fromOp(F16, i -> i ^ 1);
    private static final VectorMask<Float> LANE_BIT8 = VectorMask.fromLong(F16, 0xFF00L);
    private static final VectorMask<Float> LANE_BIT4 = VectorMask.fromLong(F16, 0xF0F0L);

    private Lanes() {}

    /**
     * Sum of the 16 lanes in a fixed pairwise order. {@code reduceLanes(ADD)} leaves the order
     * open, and its interpreted and compiled forms differ, so results would depend on JIT timing.
     */
    public static float sum(FloatVector v) {
        v = v.add(v.rearrange(SWAP8));
        v = v.add(v.rearrange(SWAP4));
        v = v.add(v.rearrange(SWAP2));
        return v.add(v.rearrange(SWAP1)).lane(0);
    }

    /**
     * {@code out[off + k] = sum(v_k) * scale} for four vectors, each sum in exactly the order of
     * {@link #sum} (float addition is commutative, so the pairs may meet in either order), with
     * the four reductions sharing their vectors: the first two halvings pack two rows, then four,
     * into one vector.
     */
    public static void sum4(FloatVector a, FloatVector b, FloatVector c, FloatVector d, float scale, float[] out, int off) {
        // Lanes 0-7: a[i] + a[i + 8]; lanes 8-15: b[i] + b[i - 8].
        FloatVector ab = a.blend(b, LANE_BIT8).add(b.blend(a, LANE_BIT8).rearrange(SWAP8));
        FloatVector cd = c.blend(d, LANE_BIT8).add(d.blend(c, LANE_BIT8).rearrange(SWAP8));
        // Quads of lanes: a, c, b, d, each the four-lane partial sums of its row.
        FloatVector v = ab.blend(cd, LANE_BIT4).add(cd.blend(ab, LANE_BIT4).rearrange(SWAP4));
        v = v.add(v.rearrange(SWAP2));
        v = v.add(v.rearrange(SWAP1));
        out[off] = v.lane(0) * scale;
        out[off + 1] = v.lane(8) * scale;
        out[off + 2] = v.lane(4) * scale;
        out[off + 3] = v.lane(12) * scale;
    }
}
