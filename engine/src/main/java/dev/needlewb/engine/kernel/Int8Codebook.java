package dev.needlewb.engine.kernel;

/**
 * The codebook of one code width mapped to int8 for the int8 kernels: one scale per codebook,
 * {@code scale = max|value| / 127}, {@code q = round_half_even(value / scale)}. The largest entry maps
 * to +-127 exactly; the others carry at most half a step (scale / 2) of rounding error.
 */
public record Int8Codebook(byte[] values, float scale) {

    public static Int8Codebook of(float[] codebook) {
        float absmax = 0f;
        for (float v : codebook) absmax = Math.max(absmax, Math.abs(v));
        float scale = absmax > 0f ? absmax / 127f : 1f;
        byte[] q = new byte[codebook.length];
        for (int i = 0; i < q.length; i++) q[i] = (byte) Math.rint(codebook[i] / scale);
        return new Int8Codebook(q, scale);
    }

    @Override
    public byte[] values() {
        return values.clone();
    }
}
