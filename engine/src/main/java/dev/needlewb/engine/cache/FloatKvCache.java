package dev.needlewb.engine.cache;

import dev.needlewb.engine.kernel.Lanes;
import jdk.incubator.vector.FloatVector;

/**
 * float32 keys and values: the exact mode's cache (what the reference computes). A score is
 * {@link Lanes#dotAll} over the head's dimensions (16 logical lanes, then the dimensions past the
 * last multiple of 16 in order); a weighted value sum is one fused multiply-add chain per dimension
 * over the positions in order, on vectors of the width up to the last whole vector of the head and in
 * scalar {@link Math#fma} past it (the same operation, so the same bits).
 */
public final class FloatKvCache extends KvCache {
    private final float[][] keys;
    private final float[][] values;

    public FloatKvCache(int layers, int kvHeads, int keyHeadDim, int valueHeadDim, int window, int sinks, int maxPositions) {
        super(layers, kvHeads, keyHeadDim, valueHeadDim, window, sinks, maxPositions);
        keys = new float[layers][];
        values = new float[layers][];
        allocateInitial();
    }

    @Override
    protected void resize(int newSlots) {
        int keyLength = Math.multiplyExact(newSlots, keyDim), valueLength = Math.multiplyExact(newSlots, valueDim);
        for (int l = 0; l < layers; l++) {
            keys[l] = keys[l] == null ? new float[keyLength] : java.util.Arrays.copyOf(keys[l], keyLength);
            values[l] = values[l] == null ? new float[valueLength] : java.util.Arrays.copyOf(values[l], valueLength);
        }
    }

    @Override
    protected Plane[] planes(int layer) {
        return new Plane[] {new Plane(keys[layer], keyDim, true), new Plane(values[layer], valueDim, true)};
    }

    @Override
    public void write(int layer, int pos, float[] k, int kOff, float[] v, int vOff) {
        int slot = slot(pos);
        reserve(slot);
        System.arraycopy(k, kOff, keys[layer], slot * keyDim, keyDim);
        System.arraycopy(v, vOff, values[layer], slot * valueDim, valueDim);
    }

    @Override
    public void scores(int layer, int from, int to, int head, float[] q, int qOff, float scale, float[] scores, int sOff) {
        float[] key = keys[layer];
        int dimOff = head * keyHeadDim;
        for (int p = from; p < to; p++) {
            scores[sOff + p - from] = Lanes.dotAll(key, slot(p) * keyDim + dimOff, q, qOff, keyHeadDim) * scale;
        }
    }

    @Override
    public void accumulate(int layer, int from, int to, int head, float[] w, int wOff, float[] out, int outOff) {
        float[] value = values[layer];
        int dimOff = head * valueHeadDim, body = valueHeadDim & -Lanes.W;
        for (int i = 0; i < body; i += Lanes.W) {
            FloatVector acc = FloatVector.fromArray(Lanes.F, out, outOff + i);
            for (int p = from; p < to; p++) {
                acc = FloatVector.fromArray(Lanes.F, value, slot(p) * valueDim + dimOff + i).fma(FloatVector.broadcast(Lanes.F, w[wOff + p - from]), acc);
            }
            acc.intoArray(out, outOff + i);
        }
        for (int i = body; i < valueHeadDim; i++) {
            float acc = out[outOff + i];
            for (int p = from; p < to; p++) acc = Math.fma(value[slot(p) * valueDim + dimOff + i], w[wOff + p - from], acc);
            out[outOff + i] = acc;
        }
    }

    @Override
    public long bytes() {
        return (long) layers * slots * (keyDim + valueDim) * Float.BYTES;
    }
}
