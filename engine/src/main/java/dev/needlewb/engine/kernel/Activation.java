package dev.needlewb.engine.kernel;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * One input vector prepared for every CQ matrix that reads it (Q, K, V and gate share one): per
 * group the orthonormal Hadamard transform {@code H_g x} in float32, stored in the plane order of
 * {@link CodeLayout}; in {@link NumericMode#INT8} additionally quantized per group to int8 with
 * scale {@code absmax / 127} (round half even; an all-zero group gets scale 1). Allocated once and
 * refilled by {@link #prepare} for every new input, so the hot path allocates nothing.
 *
 * <p>The kernels get one factor per group in {@link #scales} and the input in the shape their code
 * width reads. Exact mode: {@link #x} in plane order, {@code x = H_g x}, every factor 1 (multiplying by 1
 * is exact, so the float32 arithmetic is unchanged). int8 mode, 4-bit codes: {@code x} holds the int8
 * values as floats and the factor is the group's scale; the kernels accumulate {@code codebook8 * x} in
 * float lanes: every product is an integer below 2^14 and every partial sum of a group stays below
 * {@code group * 127 * 127 < 2^24} for groups up to 1024, so float32 adds them exactly and the sums
 * are the int32 dot products bit for bit. Every int8 input also keeps its int8 values (as floats) in
 * natural order, from which {@link #bind} builds the {@link NibbleTables} of each codebook the block
 * kernel ({@link RowBlocks}) uses; a 2-bit input needs no plane order, as only the block kernel reads it.
 */
public final class Activation {
    private static final VectorSpecies<Float> F = Lanes.F;
    /** 1.5 * 2^23: adding it leaves a float of magnitude below 2^22 rounded to an integer (ulp 1). */
    private static final float ROUNDING = 0x1.8p23f;
    private final int cols;
    private final int colsPad;
    private final int group;
    private final CodeLayout layout;
    private final NumericMode mode;
    /** The input padded to whole groups, then its transform; in int8 mode then its int8 values, in natural order. */
    private final float[] natural;
    private final int[] planeIndex;
    final float[] x;
    final float[] scales;
    /** The pair tables of the codebooks bound so far (one in practice). */
    private NibbleTables[] tables = new NibbleTables[0];
    /** Counts {@link #prepare} calls: tables built for an older input are stale. */
    private long generation;

    /** Largest group whose int8 dot product float32 sums exactly: 1024 * 127 * 127 < 2^24. */
    public static final int MAX_EXACT_GROUP = 1024;

    public Activation(int cols, int group, CodeLayout layout, NumericMode mode) {
        if (cols <= 0) throw new IllegalArgumentException("cols must be positive, got " + cols);
        if (!Hadamard.isPowerOfTwo(group) || group % layout.codesPerChunk() != 0 || group > MAX_EXACT_GROUP) {
            throw new IllegalArgumentException("group " + group + " must be a power of two, a multiple of "
                    + layout.codesPerChunk() + " for " + layout.bits() + "-bit codes and at most " + MAX_EXACT_GROUP);
        }
        this.cols = cols;
        this.group = group;
        this.colsPad = Math.ceilDiv(cols, group) * group;
        this.layout = layout;
        this.mode = mode;
        this.natural = new float[colsPad];
        this.planeIndex = new int[colsPad];
        for (int k = 0; k < colsPad; k++) planeIndex[k] = layout.planeIndex(k);
        this.x = new float[colsPad];
        this.scales = new float[colsPad / group];
        java.util.Arrays.fill(scales, 1f);
    }

    /** Transforms {@code input[off, off + cols)} for the next matrix-vector products. */
    public void prepare(float[] input, int off) {
        generation++;
        System.arraycopy(input, off, natural, 0, cols);
        java.util.Arrays.fill(natural, cols, colsPad, 0f);
        for (int g = 0; g < colsPad; g += group) Hadamard.transform(natural, g, group);
        if (mode == NumericMode.EXACT) toPlaneOrder();
        else quantize();
    }

    /**
     * Per group on vectors (every group is a multiple of 16 and so of the width): the absolute maximum
     * (order-free), then {@code rint(v / scale)} by adding and subtracting 1.5 * 2^23, which rounds half
     * to even exactly like {@link Math#rint} for |v / scale| <= 127 (it gives +0 where rint gives -0, and
     * the kernels sum from +0, so the sums are the same bits), then moved into plane order (a scalar
     * permutation: a vector scatter has no instruction below AVX-512).
     */
    private void quantize() {
        for (int g = 0, gi = 0; g < colsPad; g += group, gi++) {
            FloatVector max = FloatVector.zero(F);
            for (int k = g; k < g + group; k += F.length()) max = max.max(FloatVector.fromArray(F, natural, k).abs());
            float absmax = max.reduceLanes(VectorOperators.MAX);
            float scale = absmax > 0f ? absmax / 127f : 1f;
            scales[gi] = scale;
            for (int k = g; k < g + group; k += F.length()) {
                FloatVector.fromArray(F, natural, k).div(scale).add(ROUNDING).sub(ROUNDING).intoArray(natural, k);
            }
        }
        if (layout.bits() == 4) toPlaneOrder();
    }

    /**
     * Makes the nibble tables of {@code codebook8} (an int8 codebook) current for this input,
     * building them if needed. The caller does this on one thread before any kernel reads them
     * ({@link #tables}), as {@link PackedCqMatrix#bind} does for a matrix-vector product.
     */
    void bind(byte[] codebook8) {
        if (mode != NumericMode.INT8) throw new IllegalStateException("nibble tables exist for int8 inputs only");
        NibbleTables t = find(codebook8);
        if (t == null) {
            t = new NibbleTables(codebook8, colsPad);
            tables = java.util.Arrays.copyOf(tables, tables.length + 1);
            tables[tables.length - 1] = t;
        }
        if (!t.isBuiltFor(generation)) t.build(natural, generation);
    }

    /** The current nibble tables of {@code codebook8}; throws unless {@link #bind} made them so for this input. */
    NibbleTables tables(byte[] codebook8) {
        NibbleTables t = mode == NumericMode.INT8 ? find(codebook8) : null;
        if (t == null || !t.isBuiltFor(generation)) {
            throw new IllegalStateException("activation not bound to this codebook since its last prepare (use matvec)");
        }
        return t;
    }

    private NibbleTables find(byte[] codebook8) {
        for (NibbleTables t : tables) if (t.isFor(codebook8)) return t;
        return null;
    }

    /** int8 mode: the quantized input at natural position {@code k} (tests and diagnostics). */
    int quantized(int k) {
        if (mode != NumericMode.INT8) throw new IllegalStateException("exact-mode activations are not quantized");
        return (int) natural[k];
    }

    private void toPlaneOrder() {
        for (int k = 0; k < colsPad; k++) x[planeIndex[k]] = natural[k];
    }

    public int cols() {
        return cols;
    }

    public int group() {
        return group;
    }

    public CodeLayout layout() {
        return layout;
    }

    public NumericMode mode() {
        return mode;
    }
}
