package dev.needlewb.engine.layer;

import dev.needlewb.engine.kernel.Lanes;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;

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

    private static FloatVector widen(byte[] q, int at) {
        return (FloatVector) ByteVector.fromArray(ByteVector.SPECIES_128, q, at).convertShape(VectorOperators.B2F, Lanes.F16, 0);
    }

    @Override
    public void scores(int layer, int from, int to, int dimOff, int n, float[] q, int qOff, float scale, float[] scores, int sOff) {
        byte[] key = keys[layer];
        float[] ks = keyScales[layer];
        for (int p = from; p < to; p++) {
            int at = slot(p) * kvDim + dimOff;
            FloatVector acc = FloatVector.zero(Lanes.F16);
            for (int i = 0; i < n; i += 16) {
                FloatVector qs = FloatVector.fromArray(Lanes.F16, q, qOff + i).mul(ks[(at + i) / BLOCK]);
                acc = widen(key, at + i).fma(qs, acc);
            }
            scores[sOff + p - from] = Lanes.sum(acc) * scale;
        }
    }

    @Override
    public void accumulate(int layer, int from, int to, int dimOff, int n, float[] w, int wOff, float[] out, int outOff) {
        byte[] value = values[layer];
        float[] vs = valueScales[layer];
        for (int i = 0; i < n; i += 16) {
            FloatVector acc = FloatVector.fromArray(Lanes.F16, out, outOff + i);
            for (int p = from; p < to; p++) {
                int at = slot(p) * kvDim + dimOff + i;
                acc = widen(value, at).fma(FloatVector.broadcast(Lanes.F16, w[wOff + p - from] * vs[at / BLOCK]), acc);
            }
            acc.intoArray(out, outOff + i);
        }
    }

    @Override
    public long bytes() {
        return 2L * layers * capacity * (kvDim + (long) kvDim / BLOCK * Float.BYTES);
    }
}
