package dev.needlewb.engine.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/** The 16-lane float species the kernels use, and a reproducible horizontal sum. */
public final class Lanes {
    public static final VectorSpecies<Float> F16 = FloatVector.SPECIES_512;
    private static final VectorShuffle<Float> SWAP8 = VectorShuffle.fromOp(F16, i -> i ^ 8);
    private static final VectorShuffle<Float> SWAP4 = VectorShuffle.fromOp(F16, i -> i ^ 4);
    private static final VectorShuffle<Float> SWAP2 = VectorShuffle.fromOp(F16, i -> i ^ 2);
    private static final VectorShuffle<Float> SWAP1 = VectorShuffle.fromOp(F16, i -> i ^ 1);

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
}
