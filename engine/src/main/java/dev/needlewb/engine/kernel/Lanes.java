package dev.needlewb.engine.kernel;

import dev.needlewb.converter.simd.VectorWidth;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * The engine's numeric contract for vector code: 16 logical float lanes, whatever the machine's
 * vector width. A logical 16-lane value is held as {@link #PARTS} physical vectors of {@link #F}
 * (1 at 512 bits, 2 at 256, 4 at 128): logical lane {@code i} is lane {@code i % W} of part
 * {@code i / W}. Every lane-wise chain (a dot product's FMAs, a sum of squares) therefore sees the
 * same operands in the same order at every width, and every sum of the 16 lanes follows one pairwise
 * tree (lane {@code i} with {@code i ^ 8}, then {@code i ^ 4}, {@code i ^ 2}, {@code i ^ 1}), so the
 * engine's outputs are the same bits at 128, 256 and 512 bits. Loops that pair a vector body with a
 * scalar tail split at {@link #loopBound} (a multiple of 16), never at the physical width, for the
 * same reason.
 *
 * <p>{@code reduceLanes(ADD)} leaves the order open, and its interpreted and compiled forms differ,
 * so it is never used for sums: results would depend on JIT timing.
 */
public final class Lanes {
    /** Logical lanes of every reduction and vector/scalar split. */
    public static final int LOGICAL = 16;
    /** The physical float species (the machine's width, or the one {@link VectorWidth} was asked for). */
    public static final VectorSpecies<Float> F = VectorWidth.FLOATS;
    /** Float lanes per physical vector: 4, 8 or 16. */
    public static final int W = F.length();
    /** Physical vectors per logical 16-lane value. */
    public static final int PARTS = LOGICAL / W;

    /** {@code SWAP[s]} exchanges lanes {@code i} and {@code i ^ s} of one physical vector, for s < W. */
    private static final VectorShuffle<Float>[] SWAP = swaps();
    /** Lanes whose index has bit {@code s} set, for s = W/2 and W/4 (the packed reduction of {@link #sum4}). */
    private static final VectorMask<Float> UPPER_HALF = upper(W / 2), UPPER_QUARTER = upper(W / 4);

    private Lanes() {}

    /** The end of the vector body of a loop over {@code n} values: {@code n} rounded down to 16. */
    public static int loopBound(int n) {
        return n & -LOGICAL;
    }

    /** Shuffle exchanging lanes {@code i} and {@code i ^ span} of a physical vector ({@code span < W}). */
    public static VectorShuffle<Float> swap(int span) {
        return SWAP[span];
    }

    /**
     * The sum of a logical 16-lane value given as its parts (those beyond {@link #PARTS} are
     * ignored), in the contract's tree: the parts meet first ({@code (p0 + p2) + (p1 + p3)} at 128
     * bits, {@code p0 + p1} at 256), then the lanes of the one vector left.
     */
    public static float sum(FloatVector p0, FloatVector p1, FloatVector p2, FloatVector p3) {
        return tree(combine(p0, p1, p2, p3));
    }

    /** The sum of the logical 16-lane value stored at {@code lanes[off, off + 16)}, in the contract's tree. */
    public static float sum(float[] lanes, int off) {
        return tree(combined(lanes, off));
    }

    /**
     * {@code out[at + k] = sum(lanes[16 k, 16 k + 16)) * scale} for four logical values stored one
     * after the other, each sum in exactly the order of {@link #sum(float[], int)} (float addition is
     * commutative, so the pairs may meet in either order). The parts of each value are combined first;
     * then the first two halvings of the four vectors pack two, then four, values into one vector.
     */
    public static void sum4(float[] lanes, float scale, float[] out, int at) {
        FloatVector a = combined(lanes, 0), b = combined(lanes, LOGICAL), c = combined(lanes, 2 * LOGICAL),
                d = combined(lanes, 3 * LOGICAL);
        // Lower half of the lanes: a[i] + a[i + W/2]; upper half: b[i] + b[i - W/2].
        FloatVector ab = a.blend(b, UPPER_HALF).add(b.blend(a, UPPER_HALF).rearrange(SWAP[W / 2]));
        FloatVector cd = c.blend(d, UPPER_HALF).add(d.blend(c, UPPER_HALF).rearrange(SWAP[W / 2]));
        // Quarters of the lanes: a, c, b, d, each the partial sums of its value.
        FloatVector v = ab.blend(cd, UPPER_QUARTER).add(cd.blend(ab, UPPER_QUARTER).rearrange(SWAP[W / 4]));
        for (int span = W / 8; span >= 1; span >>= 1) v = v.add(v.rearrange(SWAP[span]));
        out[at] = v.lane(0) * scale;
        out[at + 1] = v.lane(W / 2) * scale;
        out[at + 2] = v.lane(W / 4) * scale;
        out[at + 3] = v.lane(3 * W / 4) * scale;
    }

    /**
     * {@code sum_i a[aOff + i] * b[bOff + i]} over {@code i < loopBound(n)}: logical lane {@code j}
     * chains the fused multiply-adds of {@code i = j, j + 16, ...} in order, then the lanes are summed
     * in the contract's tree. The caller adds any scalar tail past {@link #loopBound}.
     */
    public static float dot(float[] a, int aOff, float[] b, int bOff, int n) {
        FloatVector s0 = FloatVector.zero(F), s1 = s0, s2 = s0, s3 = s0;
        for (int i = 0, end = loopBound(n); i < end; i += LOGICAL) {
            s0 = FloatVector.fromArray(F, a, aOff + i).fma(FloatVector.fromArray(F, b, bOff + i), s0);
            if (PARTS > 1) s1 = FloatVector.fromArray(F, a, aOff + i + W).fma(FloatVector.fromArray(F, b, bOff + i + W), s1);
            if (PARTS > 2) {
                s2 = FloatVector.fromArray(F, a, aOff + i + 2 * W).fma(FloatVector.fromArray(F, b, bOff + i + 2 * W), s2);
                s3 = FloatVector.fromArray(F, a, aOff + i + 3 * W).fma(FloatVector.fromArray(F, b, bOff + i + 3 * W), s3);
            }
        }
        return tree(combine(s0, s1, s2, s3));
    }

    /**
     * {@code sum_i a[off + i]} over {@code i < n}: logical lane {@code j} adds {@code i = j, j + 16, ...}
     * in order, then the lanes are summed in the contract's tree. Past the last whole block of 16 the
     * values are added one vector at a time on masked lanes (a lane that is off adds nothing), so the
     * order is the same.
     */
    public static float sumOf(float[] a, int off, int n) {
        FloatVector s0 = FloatVector.zero(F), s1 = s0, s2 = s0, s3 = s0;
        int end = loopBound(n);
        for (int i = 0; i < end; i += LOGICAL) {
            s0 = s0.add(FloatVector.fromArray(F, a, off + i));
            if (PARTS > 1) s1 = s1.add(FloatVector.fromArray(F, a, off + i + W));
            if (PARTS > 2) {
                s2 = s2.add(FloatVector.fromArray(F, a, off + i + 2 * W));
                s3 = s3.add(FloatVector.fromArray(F, a, off + i + 3 * W));
            }
        }
        for (int i = end, p = 0; i < n; i += W, p++) {
            VectorMask<Float> on = F.indexInRange(i, n);
            FloatVector v = FloatVector.fromArray(F, a, off + i, on);
            if (p == 0) s0 = s0.add(v, on);
            else if (p == 1) s1 = s1.add(v, on);
            else if (p == 2) s2 = s2.add(v, on);
            else s3 = s3.add(v, on);
        }
        return tree(combine(s0, s1, s2, s3));
    }

    /** The parts of a logical value added as the tree's first levels do (those past {@link #PARTS} unused). */
    private static FloatVector combine(FloatVector p0, FloatVector p1, FloatVector p2, FloatVector p3) {
        return PARTS == 1 ? p0 : PARTS == 2 ? p0.add(p1) : p0.add(p2).add(p1.add(p3));
    }

    /** {@link #combine} of the logical value stored at {@code lanes[off]}. */
    private static FloatVector combined(float[] lanes, int off) {
        FloatVector p0 = FloatVector.fromArray(F, lanes, off);
        if (PARTS == 1) return p0;
        FloatVector p1 = FloatVector.fromArray(F, lanes, off + W);
        if (PARTS == 2) return p0.add(p1);
        return p0.add(FloatVector.fromArray(F, lanes, off + 2 * W)).add(p1.add(FloatVector.fromArray(F, lanes, off + 3 * W)));
    }

    /** Lane 0 after the in-vector levels of the tree: lane i with i ^ (W / 2), ..., i ^ 1. */
    private static float tree(FloatVector v) {
        for (int span = W / 2; span >= 1; span >>= 1) v = v.add(v.rearrange(SWAP[span]));
        return v.lane(0);
    }

    @SuppressWarnings("unchecked")
    private static VectorShuffle<Float>[] swaps() {
        VectorShuffle<Float>[] s = new VectorShuffle[W];
        for (int span = 1; span < W; span <<= 1) {
            int x = span;
            s[span] = VectorShuffle.fromOp(F, i -> i ^ x);
        }
        return s;
    }

    private static VectorMask<Float> upper(int span) {
        boolean[] bits = new boolean[W];
        for (int i = 0; i < W; i++) bits[i] = (i & span) != 0;
        return VectorMask.fromArray(F, bits, 0);
    }
}
