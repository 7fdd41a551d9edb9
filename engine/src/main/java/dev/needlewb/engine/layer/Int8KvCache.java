package dev.needlewb.engine.layer;

import dev.needlewb.engine.kernel.Lanes;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;

/**
 * int8 keys and values with one float32 scale per {@value #BLOCK} values (the production layout
 * upstream's KV budget assumes): {@code scale = absmax / 127} (1 for an all-zero block),
 * {@code q = round_half_even(x / scale)}, so each stored value is within {@code scale / 2} of the input.
 * Keys are stored dimension-major ({@code [dim][slot]}, scales {@code [block][slot]}) so scores come
 * out 16 slots at a time with no horizontal sums; values stay slot-major for the weighted sum.
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
        int slot = slot(pos);
        quantize(v, vOff, values[layer], valueScales[layer], slot * kvDim);
        byte[] kt = keys[layer];
        float[] ks = keyScales[layer];
        for (int b = 0; b < kvDim; b += BLOCK) {
            float scale = blockScale(k, kOff + b);
            ks[(b / BLOCK) * capacity + slot] = scale;
            for (int i = b; i < b + BLOCK; i++) kt[i * capacity + slot] = (byte) Math.rint(k[kOff + i] / scale);
        }
    }

    private static float blockScale(float[] x, int off) {
        float absmax = 0f;
        for (int i = 0; i < BLOCK; i++) absmax = Math.max(absmax, Math.abs(x[off + i]));
        return absmax > 0f ? absmax / 127f : 1f;
    }

    private void quantize(float[] x, int off, byte[] q, float[] scales, int at) {
        for (int b = 0; b < kvDim; b += BLOCK) {
            float scale = blockScale(x, off + b);
            scales[(at + b) / BLOCK] = scale;
            for (int i = 0; i < BLOCK; i++) q[at + b + i] = (byte) Math.rint(x[off + b + i] / scale);
        }
    }

    private static FloatVector widen(byte[] q, int at) {
        return (FloatVector) ByteVector.fromArray(ByteVector.SPECIES_128, q, at).convertShape(VectorOperators.B2F, Lanes.F16, 0);
    }

    @Override
    public void scores(int layer, int from, int to, int dimOff, int n, float[] q, int qOff, float scale, float[] scores, int sOff) {
        for (int p = from; p < to; ) {
            int slot = slot(p);
            int run = runLength(slot, to - p);
            slotScores(layer, slot, run, dimOff, n, q, qOff, scale, scores, sOff + p - from);
            p += run;
        }
    }

    /** How many of {@code wanted} positions from the one at {@code slot} lie in consecutive slots. */
    private int runLength(int slot, int wanted) {
        int limit = window != 0 && slot < sinks ? sinks : capacity;
        return Math.min(wanted, limit - slot);
    }

    /** Scores of {@code run} consecutive slots from {@code slot}: 16 at a time, then the rest on masked lanes. */
    private void slotScores(int layer, int slot, int run, int dimOff, int n, float[] q, int qOff, float scale,
            float[] scores, int sOff) {
        byte[] kt = keys[layer];
        float[] ks = keyScales[layer];
        int j = 0;
        for (; j + 16 <= run; j += 16) {
            FloatVector total = FloatVector.zero(Lanes.F16);
            for (int b = 0; b < n; b += BLOCK) {
                FloatVector acc = FloatVector.zero(Lanes.F16);
                for (int d = b; d < b + BLOCK; d++) {
                    acc = widen(kt, (dimOff + d) * capacity + slot + j).fma(FloatVector.broadcast(Lanes.F16, q[qOff + d]), acc);
                }
                total = acc.fma(FloatVector.fromArray(Lanes.F16, ks, ((dimOff + b) / BLOCK) * capacity + slot + j), total);
            }
            total.mul(scale).intoArray(scores, sOff + j);
        }
        if (j < run) tailScores(layer, slot + j, run - j, dimOff, n, q, qOff, scale, scores, sOff + j);
    }

    /**
     * Scores of the last {@code count < 16} slots of a run, on masked lanes with a separate multiply
     * and add per term: bit for bit the scalar {@code acc += q * k; total += acc * blockScale} each
     * slot had before (Java never fuses them), only 16 slots at a time.
     */
    private void tailScores(int layer, int slot, int count, int dimOff, int n, float[] q, int qOff, float scale,
            float[] scores, int sOff) {
        byte[] kt = keys[layer];
        float[] ks = keyScales[layer];
        VectorMask<Byte> bytes = ByteVector.SPECIES_128.indexInRange(0, count);
        VectorMask<Float> floats = Lanes.F16.indexInRange(0, count);
        FloatVector total = FloatVector.zero(Lanes.F16);
        for (int b = 0; b < n; b += BLOCK) {
            FloatVector acc = FloatVector.zero(Lanes.F16);
            for (int d = b; d < b + BLOCK; d++) {
                FloatVector key = (FloatVector) ByteVector.fromArray(ByteVector.SPECIES_128, kt, (dimOff + d) * capacity + slot, bytes)
                        .convertShape(VectorOperators.B2F, Lanes.F16, 0);
                acc = acc.add(key.mul(q[qOff + d]));
            }
            total = total.add(acc.mul(FloatVector.fromArray(Lanes.F16, ks, ((dimOff + b) / BLOCK) * capacity + slot, floats)));
        }
        total.mul(scale).intoArray(scores, sOff, floats);
    }

    @Override
    public void scores2(int layer, int from, int to, int dimOff, int n, float[] q, int qOff, float scale,
            float[] s0, float[] s1, int sOff) {
        for (int p = from; p < to; ) {
            int slot = slot(p);
            int run = runLength(slot, to - p);
            slotScores2(layer, slot, run, dimOff, n, q, qOff, scale, s0, s1, sOff + p - from);
            p += run;
        }
    }

    /**
     * {@link #slotScores} for two queries, each widened key feeding both (same arithmetic per query).
     * 32 slots at a time where the run allows, so four accumulation chains are in flight instead of two
     * (a chain waits on its fused multiply-add's latency); each lane still adds its dimensions in order.
     */
    private void slotScores2(int layer, int slot, int run, int dimOff, int n, float[] q, int qOff, float scale,
            float[] s0, float[] s1, int sOff) {
        byte[] kt = keys[layer];
        float[] ks = keyScales[layer];
        int q1 = qOff + n;
        int j = 0;
        for (; j + 32 <= run; j += 32) {
            FloatVector total0 = FloatVector.zero(Lanes.F16), total1 = total0, total2 = total0, total3 = total0;
            for (int b = 0; b < n; b += BLOCK) {
                FloatVector acc0 = FloatVector.zero(Lanes.F16), acc1 = acc0, acc2 = acc0, acc3 = acc0;
                for (int d = b; d < b + BLOCK; d++) {
                    int at = (dimOff + d) * capacity + slot + j;
                    FloatVector key = widen(kt, at);
                    FloatVector nextKey = widen(kt, at + 16);
                    FloatVector query0 = FloatVector.broadcast(Lanes.F16, q[qOff + d]);
                    FloatVector query1 = FloatVector.broadcast(Lanes.F16, q[q1 + d]);
                    acc0 = key.fma(query0, acc0);
                    acc1 = key.fma(query1, acc1);
                    acc2 = nextKey.fma(query0, acc2);
                    acc3 = nextKey.fma(query1, acc3);
                }
                int scaleAt = ((dimOff + b) / BLOCK) * capacity + slot + j;
                FloatVector blockScales = FloatVector.fromArray(Lanes.F16, ks, scaleAt);
                FloatVector nextBlockScales = FloatVector.fromArray(Lanes.F16, ks, scaleAt + 16);
                total0 = acc0.fma(blockScales, total0);
                total1 = acc1.fma(blockScales, total1);
                total2 = acc2.fma(nextBlockScales, total2);
                total3 = acc3.fma(nextBlockScales, total3);
            }
            total0.mul(scale).intoArray(s0, sOff + j);
            total1.mul(scale).intoArray(s1, sOff + j);
            total2.mul(scale).intoArray(s0, sOff + j + 16);
            total3.mul(scale).intoArray(s1, sOff + j + 16);
        }
        for (; j + 16 <= run; j += 16) {
            FloatVector total0 = FloatVector.zero(Lanes.F16), total1 = total0;
            for (int b = 0; b < n; b += BLOCK) {
                FloatVector acc0 = FloatVector.zero(Lanes.F16), acc1 = acc0;
                for (int d = b; d < b + BLOCK; d++) {
                    FloatVector key = widen(kt, (dimOff + d) * capacity + slot + j);
                    acc0 = key.fma(FloatVector.broadcast(Lanes.F16, q[qOff + d]), acc0);
                    acc1 = key.fma(FloatVector.broadcast(Lanes.F16, q[q1 + d]), acc1);
                }
                FloatVector blockScales = FloatVector.fromArray(Lanes.F16, ks, ((dimOff + b) / BLOCK) * capacity + slot + j);
                total0 = acc0.fma(blockScales, total0);
                total1 = acc1.fma(blockScales, total1);
            }
            total0.mul(scale).intoArray(s0, sOff + j);
            total1.mul(scale).intoArray(s1, sOff + j);
        }
        if (j < run) {
            tailScores(layer, slot + j, run - j, dimOff, n, q, qOff, scale, s0, sOff + j);
            tailScores(layer, slot + j, run - j, dimOff, n, q, q1, scale, s1, sOff + j);
        }
    }

    @Override
    public void accumulate(int layer, int from, int to, int dimOff, int n, float[] w, int wOff, float[] out, int outOff) {
        for (int p = from; p < to; ) {
            int slot = slot(p);
            int run = runLength(slot, to - p);
            slotAccumulate(layer, slot, run, dimOff, n, w, wOff + p - from, out, outOff);
            p += run;
        }
    }

    /** {@code run} consecutive slots from {@code slot}; per 16 dimensions the slots are added in order. */
    private void slotAccumulate(int layer, int slot, int run, int dimOff, int n, float[] w, int wOff, float[] out, int outOff) {
        byte[] value = values[layer];
        float[] vs = valueScales[layer];
        for (int i = 0; i < n; i += 16) {
            FloatVector acc = FloatVector.fromArray(Lanes.F16, out, outOff + i);
            int at = slot * kvDim + dimOff + i;
            for (int j = 0; j < run; j++, at += kvDim) {
                acc = widen(value, at).fma(FloatVector.broadcast(Lanes.F16, w[wOff + j] * vs[at / BLOCK]), acc);
            }
            acc.intoArray(out, outOff + i);
        }
    }

    @Override
    public void accumulate2(int layer, int from, int to, int dimOff, int n, float[] w0, float[] w1, int wOff,
            float[] out, int outOff) {
        for (int p = from; p < to; ) {
            int slot = slot(p);
            int run = runLength(slot, to - p);
            slotAccumulate2(layer, slot, run, dimOff, n, w0, w1, wOff + p - from, out, outOff);
            p += run;
        }
    }

    /**
     * {@link #slotAccumulate} for two queries, each widened value feeding both (same arithmetic per query).
     * 64 dimensions at a time where {@code n} allows: eight accumulation chains instead of two, each
     * lane still adding the slots in order.
     */
    private void slotAccumulate2(int layer, int slot, int run, int dimOff, int n, float[] w0, float[] w1, int wOff,
            float[] out, int outOff) {
        byte[] value = values[layer];
        float[] vs = valueScales[layer];
        int o1 = outOff + n;
        int i = 0;
        for (; i + 64 <= n; i += 64) {
            FloatVector a0 = FloatVector.fromArray(Lanes.F16, out, outOff + i);
            FloatVector a1 = FloatVector.fromArray(Lanes.F16, out, outOff + i + 16);
            FloatVector a2 = FloatVector.fromArray(Lanes.F16, out, outOff + i + 32);
            FloatVector a3 = FloatVector.fromArray(Lanes.F16, out, outOff + i + 48);
            FloatVector b0 = FloatVector.fromArray(Lanes.F16, out, o1 + i);
            FloatVector b1 = FloatVector.fromArray(Lanes.F16, out, o1 + i + 16);
            FloatVector b2 = FloatVector.fromArray(Lanes.F16, out, o1 + i + 32);
            FloatVector b3 = FloatVector.fromArray(Lanes.F16, out, o1 + i + 48);
            int at = slot * kvDim + dimOff + i;
            for (int j = 0; j < run; j++, at += kvDim) {
                float x0 = w0[wOff + j], x1 = w1[wOff + j];
                float s0 = vs[at / BLOCK], s1 = vs[(at + 16) / BLOCK], s2 = vs[(at + 32) / BLOCK], s3 = vs[(at + 48) / BLOCK];
                FloatVector v0 = widen(value, at), v1 = widen(value, at + 16), v2 = widen(value, at + 32), v3 = widen(value, at + 48);
                a0 = v0.fma(FloatVector.broadcast(Lanes.F16, x0 * s0), a0);
                b0 = v0.fma(FloatVector.broadcast(Lanes.F16, x1 * s0), b0);
                a1 = v1.fma(FloatVector.broadcast(Lanes.F16, x0 * s1), a1);
                b1 = v1.fma(FloatVector.broadcast(Lanes.F16, x1 * s1), b1);
                a2 = v2.fma(FloatVector.broadcast(Lanes.F16, x0 * s2), a2);
                b2 = v2.fma(FloatVector.broadcast(Lanes.F16, x1 * s2), b2);
                a3 = v3.fma(FloatVector.broadcast(Lanes.F16, x0 * s3), a3);
                b3 = v3.fma(FloatVector.broadcast(Lanes.F16, x1 * s3), b3);
            }
            a0.intoArray(out, outOff + i);
            a1.intoArray(out, outOff + i + 16);
            a2.intoArray(out, outOff + i + 32);
            a3.intoArray(out, outOff + i + 48);
            b0.intoArray(out, o1 + i);
            b1.intoArray(out, o1 + i + 16);
            b2.intoArray(out, o1 + i + 32);
            b3.intoArray(out, o1 + i + 48);
        }
        for (; i < n; i += 16) {
            FloatVector acc0 = FloatVector.fromArray(Lanes.F16, out, outOff + i);
            FloatVector acc1 = FloatVector.fromArray(Lanes.F16, out, o1 + i);
            int at = slot * kvDim + dimOff + i;
            for (int j = 0; j < run; j++, at += kvDim) {
                FloatVector v = widen(value, at);
                float blockScale = vs[at / BLOCK];
                acc0 = v.fma(FloatVector.broadcast(Lanes.F16, w0[wOff + j] * blockScale), acc0);
                acc1 = v.fma(FloatVector.broadcast(Lanes.F16, w1[wOff + j] * blockScale), acc1);
            }
            acc0.intoArray(out, outOff + i);
            acc1.intoArray(out, o1 + i);
        }
    }

    @Override
    public long bytes() {
        return 2L * layers * capacity * (kvDim + (long) kvDim / BLOCK * Float.BYTES);
    }
}
