package dev.needlewb.engine.layer;

/** float32 keys and values: the exact mode's cache (what the reference computes). */
public final class FloatKvCache extends KvCache {
    private final float[][] keys;
    private final float[][] values;

    public FloatKvCache(int layers, int kvDim, int window, int sinks, int maxPositions) {
        super(layers, kvDim, window, sinks, maxPositions);
        keys = new float[layers][capacity * kvDim];
        values = new float[layers][capacity * kvDim];
    }

    @Override
    public void write(int layer, int pos, float[] k, int kOff, float[] v, int vOff) {
        int at = slot(pos) * kvDim;
        System.arraycopy(k, kOff, keys[layer], at, kvDim);
        System.arraycopy(v, vOff, values[layer], at, kvDim);
    }

    @Override
    public float dotKey(int layer, int pos, int dimOff, int n, float[] q, int qOff) {
        float[] key = keys[layer];
        int at = slot(pos) * kvDim + dimOff;
        float s = 0f;
        for (int i = 0; i < n; i++) s += q[qOff + i] * key[at + i];
        return s;
    }

    @Override
    public void addValue(int layer, int pos, int dimOff, int n, float w, float[] out, int outOff) {
        float[] value = values[layer];
        int at = slot(pos) * kvDim + dimOff;
        for (int i = 0; i < n; i++) out[outOff + i] += w * value[at + i];
    }

    @Override
    public long bytes() {
        return 2L * layers * capacity * kvDim * Float.BYTES;
    }
}
