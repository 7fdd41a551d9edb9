package dev.needlewb.engine.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * A codebook as lane permutations: each int lane holding a code in its low bits (the bits above are
 * ignored) maps to the codebook value of that code. A permute takes its index modulo the lane count
 * W (a two-vector permute modulo 2W), so a 4-entry (2-bit) codebook is one vector of W entries
 * repeating it ({@link #crumb}); a 16-entry (4-bit) codebook takes 16 / W vectors: one permute at 16
 * lanes; at 8, two permutes and a blend on bit 3 (measured faster than one two-vector permute on
 * AVX2); at 4, two two-vector permutes and that blend ({@link #nibble}). At 16 lanes, {@link #upperCrumb} also reads the second 2-bit code of a nibble,
 * bits 2-3, from the same index, sparing a shift.
 *
 * <p>Which lookup runs is fixed per width by constants, never by a field, so C2 parses only the one
 * it needs: the kernels that call these are near C2's inlining budget, and a call it does not inline
 * runs the Vector API in Java.
 */
final class CodeTable {
    private static final VectorSpecies<Float> F = Lanes.F;
    private static final int W = Lanes.W;
    /** Vectors a 4-bit codebook takes: 1, 2 or 4. */
    private static final int NIBBLE_VECTORS = 16 / W;
    /** True where {@link #upperCrumb} exists (16 lanes). */
    static final boolean UPPER_CRUMBS = W >= 16;

    /**
     * The codebook's values in lane order, {@code t<k>} holding codes {@code k W .. k W + W - 1} (a
     * 2-bit codebook repeated across the lanes of {@code t0}). Fields, not an array: C2 compiles a
     * lookup only when it knows the vector's class, which an array element hides.
     */
    private final IntVector t0, t1, t2, t3;
    /** At 16 lanes with a 2-bit codebook: {@code value[i >> 2]} for every nibble i; else null. */
    private final IntVector upper;

    private CodeTable(IntVector[] vectors, IntVector upper) {
        this.t0 = vectors[0];
        this.t1 = vectors.length > 1 ? vectors[1] : t0;
        this.t2 = vectors.length > 2 ? vectors[2] : t0;
        this.t3 = vectors.length > 3 ? vectors[3] : t0;
        this.upper = upper;
    }

    /** A table for a 4-entry (2-bit) or 16-entry (4-bit) codebook. */
    static CodeTable of(float[] values) {
        int n = Math.max(values.length, W);
        float[] spread = new float[n];
        for (int i = 0; i < n; i++) spread[i] = values[i % values.length];
        IntVector[] vectors = new IntVector[n / W];
        for (int t = 0; t < vectors.length; t++) vectors[t] = FloatVector.fromArray(F, spread, t * W).reinterpretAsInts();
        IntVector upper = null;
        if (values.length == 4 && UPPER_CRUMBS) {
            float[] high = new float[W];
            for (int i = 0; i < W; i++) high[i] = values[(i >> 2) & 3];
            upper = FloatVector.fromArray(F, high, 0).reinterpretAsInts();
        }
        return new CodeTable(vectors, upper);
    }

    /** Values of the 2-bit codes in bits 0-1. */
    FloatVector crumb(IntVector codes) {
        return codes.selectFrom(t0).reinterpretAsFloats();
    }

    /** Values of the 2-bit codes in bits 2-3 (16 lanes only: {@link #UPPER_CRUMBS}). */
    FloatVector upperCrumb(IntVector codes) {
        return codes.selectFrom(upper).reinterpretAsFloats();
    }

    /** Values of the 4-bit codes in bits 0-3. */
    FloatVector nibble(IntVector codes) {
        return switch (NIBBLE_VECTORS) {
            case 1 -> codes.selectFrom(t0).reinterpretAsFloats();
            case 2 -> nibbleOfTwo(codes);
            default -> nibbleOfFour(codes);
        };
    }

    private FloatVector nibbleOfTwo(IntVector codes) {
        return codes.selectFrom(t0).blend(codes.selectFrom(t1), bitSet(codes, 3)).reinterpretAsFloats();
    }

    private FloatVector nibbleOfFour(IntVector codes) {
        VectorMask<Integer> bit2 = bitSet(codes, 2);
        IntVector low = codes.selectFrom(t0).blend(codes.selectFrom(t1), bit2);
        return low.blend(codes.selectFrom(t2).blend(codes.selectFrom(t3), bit2), bitSet(codes, 3)).reinterpretAsFloats();
    }

    /** Lanes whose bit {@code bit} is set: that bit shifted into the sign (one shift and a compare). */
    private static VectorMask<Integer> bitSet(IntVector codes, int bit) {
        return codes.lanewise(VectorOperators.LSHL, 31 - bit).compare(VectorOperators.LT, 0);
    }
}
