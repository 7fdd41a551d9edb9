package dev.needlewb.engine.kernel;

/**
 * One input vector prepared for every CQ matrix that reads it (Q, K, V and gate share one): per
 * group the orthonormal Hadamard transform {@code H_g x} in float32, stored in the plane order of
 * {@link CodeLayout}; in {@link NumericMode#INT8} additionally quantized per group to int8 with
 * scale {@code absmax / 127} (round half even; an all-zero group gets scale 1). Allocated once and
 * refilled by {@link #prepare} for every new input, so the hot path allocates nothing. The int8
 * values are held in int lanes: the kernels multiply them as int32 without a widening step.
 */
public final class Activation {
    private final int cols;
    private final int colsPad;
    private final int group;
    private final CodeLayout layout;
    private final NumericMode mode;
    private final float[] natural;
    private final int[] planeIndex;
    final float[] hx;
    final int[] q;
    final float[] scales;

    public Activation(int cols, int group, CodeLayout layout, NumericMode mode) {
        if (cols <= 0) throw new IllegalArgumentException("cols must be positive, got " + cols);
        if (!Hadamard.isPowerOfTwo(group) || group % layout.codesPerChunk() != 0) {
            throw new IllegalArgumentException("group " + group + " must be a power of two and a multiple of "
                    + layout.codesPerChunk() + " for " + layout.bits() + "-bit codes");
        }
        this.cols = cols;
        this.group = group;
        this.colsPad = Math.ceilDiv(cols, group) * group;
        this.layout = layout;
        this.mode = mode;
        this.natural = new float[colsPad];
        this.planeIndex = new int[colsPad];
        for (int k = 0; k < colsPad; k++) planeIndex[k] = layout.planeIndex(k);
        this.hx = mode == NumericMode.EXACT ? new float[colsPad] : null;
        this.q = mode == NumericMode.INT8 ? new int[colsPad] : null;
        this.scales = mode == NumericMode.INT8 ? new float[colsPad / group] : null;
    }

    /** Transforms {@code x[off, off + cols)} for the next matrix-vector products. */
    public void prepare(float[] x, int off) {
        System.arraycopy(x, off, natural, 0, cols);
        java.util.Arrays.fill(natural, cols, colsPad, 0f);
        for (int g = 0; g < colsPad; g += group) Hadamard.transform(natural, g, group);
        if (mode == NumericMode.EXACT) {
            for (int k = 0; k < colsPad; k++) hx[planeIndex[k]] = natural[k];
        } else {
            quantize();
        }
    }

    private void quantize() {
        for (int g = 0, gi = 0; g < colsPad; g += group, gi++) {
            float absmax = 0f;
            for (int k = g; k < g + group; k++) absmax = Math.max(absmax, Math.abs(natural[k]));
            float scale = absmax > 0f ? absmax / 127f : 1f;
            scales[gi] = scale;
            for (int k = g; k < g + group; k++) {
                q[planeIndex[k]] = (int) Math.rint(natural[k] / scale);
            }
        }
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
