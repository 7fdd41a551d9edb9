package dev.needlewb.engine.layer;

/**
 * int8 keys and values with one float32 scale per {@value #BLOCK} values (the production layout
 * upstream's KV budget assumes): {@code scale = absmax / 127} (1 for an all-zero block),
 * {@code q = round_half_even(x / scale)}, so each stored value is within {@code scale / 2} of the input.
 */
public final class Int8KvCache extends KvCache {
    public static final int BLOCK = 32;
    private final byte[][] keys;
    private final byte[][] values;
    private final float[][] keyScales;
    private final float[][] valueScales;

    public Int8KvCache(int layers, int kvDim, int window, int sinks, int maxPositions) {
        super(layers, kvDim, window, sinks, maxPositions);
        if (kvDim % BLOCK != 0) throw new IllegalArgumentException("kv width " + kvDim + " is not a multiple of " + BLOCK);
        keys = new byte[layers][capacity * kvDim];
        values = new byte[layers][capacity * kvDim];
        keyScales = new float[layers][capacity * kvDim / BLOCK];
        valueScales = new float[layers][capacity * kvDim / BLOCK];
    }

    @Override
    public void write(int layer, int pos, float[] k, int kOff, float[] v, int vOff) {
        int at = slot(pos) * kvDim;
        quantize(k, kOff, keys[layer], keyScales[layer], at);
        quantize(v, vOff, values[layer], valueScales[layer], at);
    }

    private void quantize(float[] x, int off, byte[] q, float[] scales, int at) {
        for (int b = 0; b < kvDim; b += BLOCK) {
            float absmax = 0f;
            for (int i = 0; i < BLOCK; i++) absmax = Math.max(absmax, Math.abs(x[off + b + i]));
            float scale = absmax > 0f ? absmax / 127f : 1f;
            scales[(at + b) / BLOCK] = scale;
            for (int i = 0; i < BLOCK; i++) q[at + b + i] = (byte) Math.rint(x[off + b + i] / scale);
        }
    }

    @Override
    public float dotKey(int layer, int pos, int dimOff, int n, float[] q, int qOff) {
        byte[] key = keys[layer];
        float[] scales = keyScales[layer];
        int at = slot(pos) * kvDim + dimOff;
        float s = 0f;
        for (int b = 0; b < n; b += BLOCK) {
            float block = 0f;
            for (int i = b; i < Math.min(n, b + BLOCK); i++) block += q[qOff + i] * key[at + i];
            s += block * scales[(at + b) / BLOCK];
        }
        return s;
    }

    @Override
    public void addValue(int layer, int pos, int dimOff, int n, float w, float[] out, int outOff) {
        byte[] value = values[layer];
        float[] scales = valueScales[layer];
        int at = slot(pos) * kvDim + dimOff;
        for (int b = 0; b < n; b += BLOCK) {
            float ws = w * scales[(at + b) / BLOCK];
            for (int i = b; i < Math.min(n, b + BLOCK); i++) out[outOff + i] += ws * value[at + i];
        }
    }

    @Override
    public long bytes() {
        return 2L * layers * capacity * (kvDim + (long) kvDim / BLOCK * Float.BYTES);
    }
}
