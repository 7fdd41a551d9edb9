package dev.needlewb.engine.kernel;

import dev.needlewb.core.simd.VectorWidth;
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

    /**
     * {@code SWAP<s>} exchanges lanes {@code i} and {@code i ^ s} of one physical vector (null where
     * {@code s >= W}); {@code UPPER<s>} holds the lanes whose index has bit {@code s} set. Fields, never
     * an array: C2 compiles a shuffle or mask only when it knows its class, which an array element hides,
     * and then runs the operation in Java.
     */
    public static final VectorShuffle<Float> SWAP1 = swap(1), SWAP2 = swap(2), SWAP4 = swap(4), SWAP8 = swap(8);
    public static final VectorMask<Float> UPPER1 = upper(1), UPPER2 = upper(2), UPPER4 = upper(4), UPPER8 = upper(8);
    /** The swaps and masks of spans W/2 and W/4 (the packed reduction of {@link #sum4}). */
    private static final VectorShuffle<Float> SWAP_HALF = swap(W / 2), SWAP_QUARTER = swap(W / 4);
    private static final VectorMask<Float> UPPER_HALF = upper(W / 2), UPPER_QUARTER = upper(W / 4);

    private Lanes() {}

    /** The end of the vector body of a loop over {@code n} values: {@code n} rounded down to 16. */
    public static int loopBound(int n) {
        return n & -LOGICAL;
    }

    // No method here takes or returns a vector: a vector that crosses a call C2 did not inline is
    // boxed, and C2 stops inlining even tiny methods once a compilation unit is large (a decode step's
    // layer is). Every reduction therefore ends inside the method that accumulated it.

    /**
     * {@code out[at + k] = sum(lanes[16 k, 16 k + 16)) * scale} for four logical values stored one
     * after the other, each in the contract's tree (float addition is commutative, so the pairs may
     * meet in either order): the parts of each value are combined first; then the first two halvings of
     * the four vectors pack two, then four, values into one vector.
     */
    public static void sum4(float[] lanes, float scale, float[] out, int at) {
        FloatVector a = FloatVector.fromArray(F, lanes, 0), b = FloatVector.fromArray(F, lanes, LOGICAL),
                c = FloatVector.fromArray(F, lanes, 2 * LOGICAL), d = FloatVector.fromArray(F, lanes, 3 * LOGICAL);
        if (PARTS == 2) {
            a = a.add(FloatVector.fromArray(F, lanes, W));
            b = b.add(FloatVector.fromArray(F, lanes, LOGICAL + W));
            c = c.add(FloatVector.fromArray(F, lanes, 2 * LOGICAL + W));
            d = d.add(FloatVector.fromArray(F, lanes, 3 * LOGICAL + W));
        } else if (PARTS == 4) {
            a = a.add(FloatVector.fromArray(F, lanes, 2 * W)).add(FloatVector.fromArray(F, lanes, W).add(FloatVector.fromArray(F, lanes, 3 * W)));
            b = b.add(FloatVector.fromArray(F, lanes, LOGICAL + 2 * W))
                    .add(FloatVector.fromArray(F, lanes, LOGICAL + W).add(FloatVector.fromArray(F, lanes, LOGICAL + 3 * W)));
            c = c.add(FloatVector.fromArray(F, lanes, 2 * LOGICAL + 2 * W))
                    .add(FloatVector.fromArray(F, lanes, 2 * LOGICAL + W).add(FloatVector.fromArray(F, lanes, 2 * LOGICAL + 3 * W)));
            d = d.add(FloatVector.fromArray(F, lanes, 3 * LOGICAL + 2 * W))
                    .add(FloatVector.fromArray(F, lanes, 3 * LOGICAL + W).add(FloatVector.fromArray(F, lanes, 3 * LOGICAL + 3 * W)));
        }
        // Lower half of the lanes: a[i] + a[i + W/2]; upper half: b[i] + b[i - W/2].
        FloatVector ab = a.blend(b, UPPER_HALF).add(b.blend(a, UPPER_HALF).rearrange(SWAP_HALF));
        FloatVector cd = c.blend(d, UPPER_HALF).add(d.blend(c, UPPER_HALF).rearrange(SWAP_HALF));
        // Quarters of the lanes: a, c, b, d, each the partial sums of its value.
        FloatVector v = ab.blend(cd, UPPER_QUARTER).add(cd.blend(ab, UPPER_QUARTER).rearrange(SWAP_QUARTER));
        if (W >= 16) v = v.add(v.rearrange(SWAP2));
        if (W >= 8) v = v.add(v.rearrange(SWAP1));
        out[at] = v.lane(0) * scale;
        out[at + 1] = v.lane(W / 2) * scale;
        out[at + 2] = v.lane(W / 4) * scale;
        out[at + 3] = v.lane(3 * W / 4) * scale;
    }

    /** The sum of the logical 16-lane value stored at {@code lanes[off, off + 16)}, in the contract's tree. */
    public static float sum(float[] lanes, int off) {
        return sumPadded(lanes, off, LOGICAL);
    }

    /**
     * {@code sum_i a[aOff + i] * b[bOff + i]} over {@code i < loopBound(n)}: logical lane {@code j}
     * chains the fused multiply-adds of {@code i = j, j + 16, ...} in order, then the lanes are summed
     * in the contract's tree. The caller adds any scalar tail past {@link #loopBound}.
     */
    public static float dot(float[] a, int aOff, float[] b, int bOff, int n) {
        return reduce(a, aOff, b, bOff, loopBound(n));
    }

    /**
     * {@code sum_i a[aOff + i] * b[bOff + i]} over every {@code i < n}: {@link #dot} up to
     * {@link #loopBound}{@code (n)}, then each remaining product rounded and added in index order (a
     * length that is not a multiple of 16, such as a head_dim of 24 or 40).
     */
    public static float dotAll(float[] a, int aOff, float[] b, int bOff, int n) {
        float s = dot(a, aOff, b, bOff, n);
        for (int i = loopBound(n); i < n; i++) s += a[aOff + i] * b[bOff + i];
        return s;
    }

    /**
     * {@code sum_i a[off + i]} over {@code i < n}: logical lane {@code j} adds {@code i = j, j + 16, ...}
     * in order, then the lanes are summed in the contract's tree. The values past {@code n} up to the
     * next multiple of W must be zero: they are added too (adding +0 changes no sum of values that are
     * not -0), so no masked operation is needed (AVX2 has none for this, and the Vector API would run it
     * in Java).
     */
    public static float sumPadded(float[] a, int off, int n) {
        return reduce(a, off, null, 0, n);
    }

    /**
     * The 16-lane reduction of {@code a * b} (or of {@code a} where {@code b} is null: a fused
     * multiply-add by 1 is the add, one rounding) over the vectors that start below {@code end}.
     */
    private static float reduce(float[] a, int aOff, float[] b, int bOff, int end) {
        FloatVector one = FloatVector.broadcast(F, 1f);
        FloatVector s0 = FloatVector.zero(F), s1 = s0, s2 = s0, s3 = s0;
        for (int i = 0; i < end; i += LOGICAL) {
            s0 = FloatVector.fromArray(F, a, aOff + i).fma(b == null ? one : FloatVector.fromArray(F, b, bOff + i), s0);
            if (PARTS > 1 && i + W < end) {
                s1 = FloatVector.fromArray(F, a, aOff + i + W).fma(b == null ? one : FloatVector.fromArray(F, b, bOff + i + W), s1);
            }
            if (PARTS > 2 && i + 2 * W < end) {
                s2 = FloatVector.fromArray(F, a, aOff + i + 2 * W).fma(b == null ? one : FloatVector.fromArray(F, b, bOff + i + 2 * W), s2);
            }
            if (PARTS > 2 && i + 3 * W < end) {
                s3 = FloatVector.fromArray(F, a, aOff + i + 3 * W).fma(b == null ? one : FloatVector.fromArray(F, b, bOff + i + 3 * W), s3);
            }
        }
        FloatVector v = PARTS == 1 ? s0 : PARTS == 2 ? s0.add(s1) : s0.add(s2).add(s1.add(s3));
        if (W >= 16) v = v.add(v.rearrange(SWAP8));
        if (W >= 8) v = v.add(v.rearrange(SWAP4));
        v = v.add(v.rearrange(SWAP2));
        return v.add(v.rearrange(SWAP1)).lane(0);
    }

    private static VectorShuffle<Float> swap(int span) {
        return span < W ? VectorShuffle.fromOp(F, i -> i ^ span) : null;
    }

    private static VectorMask<Float> upper(int span) {
        if (span >= W) return null;
        boolean[] bits = new boolean[W];
        for (int i = 0; i < W; i++) bits[i] = (i & span) != 0;
        return VectorMask.fromArray(F, bits, 0);
    }
}
