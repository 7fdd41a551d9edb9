package dev.needlewb.engine.layer;

import dev.needlewb.engine.kernel.Lanes;
import jdk.incubator.vector.FloatVector;

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
    protected Plane[] planes(int layer) {
        return new Plane[] {new Plane(keys[layer], kvDim, true), new Plane(values[layer], kvDim, true)};
    }

    @Override
    public void write(int layer, int pos, float[] k, int kOff, float[] v, int vOff) {
        int at = slot(pos) * kvDim;
        System.arraycopy(k, kOff, keys[layer], at, kvDim);
        System.arraycopy(v, vOff, values[layer], at, kvDim);
    }

    @Override
    public void scores(int layer, int from, int to, int dimOff, int n, float[] q, int qOff, float scale, float[] scores, int sOff) {
        float[] key = keys[layer];
        for (int p = from; p < to; p++) {
            scores[sOff + p - from] = Lanes.dot(key, slot(p) * kvDim + dimOff, q, qOff, n) * scale;
        }
    }

    @Override
    public void accumulate(int layer, int from, int to, int dimOff, int n, float[] w, int wOff, float[] out, int outOff) {
        float[] value = values[layer];
        for (int i = 0; i < n; i += Lanes.W) {
            FloatVector acc = FloatVector.fromArray(Lanes.F, out, outOff + i);
            for (int p = from; p < to; p++) {
                acc = FloatVector.fromArray(Lanes.F, value, slot(p) * kvDim + dimOff + i).fma(FloatVector.broadcast(Lanes.F, w[wOff + p - from]), acc);
            }
            acc.intoArray(out, outOff + i);
        }
    }

    @Override
    public long bytes() {
        return 2L * layers * capacity * kvDim * Float.BYTES;
    }
}
