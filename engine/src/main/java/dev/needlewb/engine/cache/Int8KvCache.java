package dev.needlewb.engine.cache;

import dev.needlewb.engine.kernel.ByteLanes;
import dev.needlewb.engine.kernel.Lanes;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * int8 keys and values with one float32 scale per block of at most {@value #BLOCK} values of one kv
 * head (the production layout Needle 2's KV budget assumes), or per whole head (Needle 3's deploy rounding): a head's dimensions form blocks of 32 from
 * its first, the last holding {@code head_dim mod 32} when that is not 0 (a head_dim of 40: 32 and 8);
 * {@code scale = absmax / 127} over the block (1 for an all-zero block),
 * {@code q = round_half_even(x / scale)}, so each stored value is within {@code scale / 2} of the input.
 * Keys are stored dimension-major ({@code [dim][slot]}, scales {@code [block][slot]}) so scores come
 * out a vector of slots at a time with no horizontal sums; values stay slot-major for the weighted sum.
 * Every lane is one slot (scores) or one dimension (weighted values) with its own chain, so the vector
 * width changes no bit; only which slots are fused (whole blocks of 16 of a run) is fixed. Dimensions of
 * a head past its last whole vector take the same chain in scalar {@link Math#fma}.
 */
public final class Int8KvCache extends KvCache {
    public static final int BLOCK = 32;
    /** Slots whose scores are fused multiply-adds come in whole blocks of 16 (the engine's logical lanes). */
    private static final int SLOT_BLOCK = Lanes.LOGICAL;
    private static final VectorSpecies<Float> F = Lanes.F;
    private static final int W = Lanes.W;
    /** Bytes past the last value a load may read: the arrays are that much longer. */
    private static final int SLACK = ByteLanes.SLACK;
    /** Values per scale of a key head and of a value head. */
    private final int keyBlock, valueBlock;
    /** Scale blocks per key head and per position (all heads), and the same of the values. */
    private final int keyHeadBlocks, keyBlocks, valueHeadBlocks, valueBlocks;
    private final byte[][] keys;
    private final byte[][] values;
    private final float[][] keyScales;
    private final float[][] valueScales;

    /** Scales per block of {@value #BLOCK} values of a head (Needle 2's production layout). */
    public Int8KvCache(int layers, int kvHeads, int keyHeadDim, int valueHeadDim, int window, int sinks, int maxPositions) {
        this(layers, kvHeads, keyHeadDim, valueHeadDim, false, window, sinks, maxPositions);
    }

    /**
     * With {@code perHead}, one scale per head vector ({@code absmax / 127} over the whole key or value head):
     * Needle 3's deploy rounding of K and V ({@code a8_fake_quant_kv}, a group of one head), else blocks of {@value #BLOCK}.
     */
    public Int8KvCache(int layers, int kvHeads, int keyHeadDim, int valueHeadDim, boolean perHead, int window, int sinks, int maxPositions) {
        super(layers, kvHeads, keyHeadDim, valueHeadDim, window, sinks, maxPositions);
        keyBlock = perHead ? keyHeadDim : BLOCK;
        valueBlock = perHead ? valueHeadDim : BLOCK;
        keyHeadBlocks = Math.ceilDiv(keyHeadDim, keyBlock);
        keyBlocks = kvHeads * keyHeadBlocks;
        valueHeadBlocks = Math.ceilDiv(valueHeadDim, valueBlock);
        valueBlocks = kvHeads * valueHeadBlocks;
        keys = new byte[layers][];
        values = new byte[layers][];
        keyScales = new float[layers][];
        valueScales = new float[layers][];
        allocateInitial();
    }

    @Override
    protected void resize(int newSlots) {
        for (int l = 0; l < layers; l++) {
            keys[l] = restride(keys[l], keyDim, newSlots);
            keyScales[l] = restride(keyScales[l], keyBlocks, newSlots);
            int valueBytes = Math.multiplyExact(newSlots, valueDim) + SLACK, scaleCount = Math.multiplyExact(newSlots, valueBlocks);
            values[l] = values[l] == null ? new byte[valueBytes] : java.util.Arrays.copyOf(values[l], valueBytes);
            valueScales[l] = valueScales[l] == null ? new float[scaleCount] : java.util.Arrays.copyOf(valueScales[l], scaleCount);
        }
    }

    /** A dimension-major {@code [rows][slots]} byte plane (plus slack) re-laid for {@code newSlots} slots per row. */
    private byte[] restride(byte[] old, int rows, int newSlots) {
        byte[] grown = new byte[Math.multiplyExact(rows, newSlots) + SLACK];
        if (old != null) for (int r = 0; r < rows; r++) System.arraycopy(old, r * slots, grown, r * newSlots, slots);
        return grown;
    }

    private float[] restride(float[] old, int rows, int newSlots) {
        float[] grown = new float[Math.multiplyExact(rows, newSlots)];
        if (old != null) for (int r = 0; r < rows; r++) System.arraycopy(old, r * slots, grown, r * newSlots, slots);
        return grown;
    }

    @Override
    protected Plane[] planes(int layer) {
        return new Plane[] {new Plane(keys[layer], keyDim, false), new Plane(values[layer], valueDim, true),
                new Plane(keyScales[layer], keyBlocks, false), new Plane(valueScales[layer], valueBlocks, true)};
    }

    @Override
    public void write(int layer, int pos, float[] k, int kOff, float[] v, int vOff) {
        int slot = slot(pos);
        reserve(slot);
        // keys dimension-major (code i at i * slots + slot, block scales at block * slots + slot), values position-major
        quantize(k, kOff, keyHeadDim, keyBlock, keys[layer], slot, slots, keyScales[layer], slot, slots);
        quantize(v, vOff, valueHeadDim, valueBlock, values[layer], slot * valueDim, 1, valueScales[layer], slot * valueBlocks, 1);
    }

    /**
     * Rounds the {@code kvHeads} head vectors of {@code x} to int8 with one absmax scale per block of
     * {@code blockLen} within a head: code {@code i} goes to {@code codes[codeBase + i * codeStride]},
     * block {@code b}'s scale to {@code scales[scaleBase + b * scaleStride]}.
     */
    private void quantize(float[] x, int xOff, int headDim, int blockLen, byte[] codes, int codeBase, int codeStride,
                          float[] scales, int scaleBase, int scaleStride) {
        for (int h = 0, block = 0; h < kvHeads; h++) {
            for (int b = 0; b < headDim; b += blockLen, block++) {
                int dim = h * headDim + b, len = Math.min(blockLen, headDim - b);
                float scale = blockScale(x, xOff + dim, len);
                scales[scaleBase + block * scaleStride] = scale;
                for (int i = dim; i < dim + len; i++) codes[codeBase + i * codeStride] = (byte) Math.rint(x[xOff + i] / scale);
            }
        }
    }

    private static float blockScale(float[] x, int off, int len) {
        float absmax = 0f;
        for (int i = 0; i < len; i++) absmax = Math.max(absmax, Math.abs(x[off + i]));
        return absmax > 0f ? absmax / 127f : 1f;
    }

    private static FloatVector widen(byte[] q, int at) {
        return ByteLanes.signed(q, at);
    }

    @Override
    public void scores(int layer, int from, int to, int head, float[] q, int qOff, float scale, float[] scores, int sOff) {
        for (int p = from; p < to; ) {
            int slot = slot(p);
            int run = runLength(slot, to - p);
            slotScores(layer, slot, run, head, q, qOff, scale, scores, sOff + p - from);
            p += run;
        }
    }

    /** How many of {@code wanted} positions from the one at {@code slot} lie in consecutive slots. */
    private int runLength(int slot, int wanted) {
        int limit = window != 0 && slot < sinks ? sinks : capacity;
        return Math.min(wanted, limit - slot);
    }

    /**
     * Scores of {@code run} consecutive slots from {@code slot}, one slot per lane: the run's whole
     * blocks of {@value #SLOT_BLOCK} slots with fused multiply-adds, the rest in {@link #tailScores}.
     */
    private void slotScores(int layer, int slot, int run, int head, float[] q, int qOff, float scale, float[] scores, int sOff) {
        byte[] kt = keys[layer];
        float[] ks = keyScales[layer];
        int dimOff = head * keyHeadDim, firstBlock = head * keyHeadBlocks;
        int whole = run & -SLOT_BLOCK;
        for (int j = 0; j < whole; j += W) {
            FloatVector total = FloatVector.zero(F);
            for (int b = 0; b < keyHeadDim; b += keyBlock) {
                FloatVector acc = FloatVector.zero(F);
                for (int d = b, end = Math.min(b + keyBlock, keyHeadDim); d < end; d++) {
                    acc = widen(kt, (dimOff + d) * slots + slot + j).fma(FloatVector.broadcast(F, q[qOff + d]), acc);
                }
                total = acc.fma(FloatVector.fromArray(F, ks, (firstBlock + b / keyBlock) * slots + slot + j), total);
            }
            total.mul(scale).intoArray(scores, sOff + j);
        }
        if (whole < run) tailScores(layer, slot + whole, run - whole, head, q, qOff, scale, scores, sOff + whole);
    }

    /**
     * Scores of the last {@code count < 16} slots of a run with a separate multiply and add per term:
     * bit for bit the scalar {@code acc += q * k; total += acc * blockScale} each slot had before (Java
     * never fuses them), a vector of slots at a time. The keys are loaded whole (the lanes past the run
     * read neighbouring slots or the array's slack, and their block scales load as 0); only the scores
     * of the run are stored. A masked byte load would be no better: AVX2 has none, and the Vector API
     * then runs it in Java.
     */
    private void tailScores(int layer, int slot, int count, int head, float[] q, int qOff, float scale, float[] scores, int sOff) {
        byte[] kt = keys[layer];
        float[] ks = keyScales[layer];
        int dimOff = head * keyHeadDim, firstBlock = head * keyHeadBlocks;
        for (int j = 0; j < count; j += W) {
            VectorMask<Float> floats = F.indexInRange(j, count);
            FloatVector total = FloatVector.zero(F);
            for (int b = 0; b < keyHeadDim; b += keyBlock) {
                FloatVector acc = FloatVector.zero(F);
                for (int d = b, end = Math.min(b + keyBlock, keyHeadDim); d < end; d++) {
                    FloatVector key = widen(kt, (dimOff + d) * slots + slot + j);
                    acc = acc.add(key.mul(q[qOff + d]));
                }
                total = total.add(acc.mul(FloatVector.fromArray(F, ks, (firstBlock + b / keyBlock) * slots + slot + j, floats)));
            }
            total.mul(scale).intoArray(scores, sOff + j, floats);
        }
    }

    @Override
    public void scores2(int layer, int from, int to, int head, float[] q, int qOff, float scale, float[] s0, float[] s1, int sOff) {
        for (int p = from; p < to; ) {
            int slot = slot(p);
            int run = runLength(slot, to - p);
            slotScores2(layer, slot, run, head, q, qOff, scale, s0, s1, sOff + p - from);
            p += run;
        }
    }

    /**
     * {@link #slotScores} for two queries, each widened key feeding both (same arithmetic per query).
     * Two vectors of slots at a time where the whole blocks allow, so four accumulation chains are in
     * flight instead of two (a chain waits on its fused multiply-add's latency); each lane still adds
     * its dimensions in order.
     */
    private void slotScores2(int layer, int slot, int run, int head, float[] q, int qOff, float scale, float[] s0, float[] s1,
            int sOff) {
        byte[] kt = keys[layer];
        float[] ks = keyScales[layer];
        int dimOff = head * keyHeadDim, firstBlock = head * keyHeadBlocks;
        int q1 = qOff + keyHeadDim;
        int whole = run & -SLOT_BLOCK;
        int j = 0;
        for (; j + 2 * W <= whole; j += 2 * W) {
            FloatVector total0 = FloatVector.zero(F), total1 = total0, total2 = total0, total3 = total0;
            for (int b = 0; b < keyHeadDim; b += keyBlock) {
                FloatVector acc0 = FloatVector.zero(F), acc1 = acc0, acc2 = acc0, acc3 = acc0;
                for (int d = b, end = Math.min(b + keyBlock, keyHeadDim); d < end; d++) {
                    int at = (dimOff + d) * slots + slot + j;
                    FloatVector key = widen(kt, at);
                    FloatVector nextKey = widen(kt, at + W);
                    FloatVector query0 = FloatVector.broadcast(F, q[qOff + d]);
                    FloatVector query1 = FloatVector.broadcast(F, q[q1 + d]);
                    acc0 = key.fma(query0, acc0);
                    acc1 = key.fma(query1, acc1);
                    acc2 = nextKey.fma(query0, acc2);
                    acc3 = nextKey.fma(query1, acc3);
                }
                int scaleAt = (firstBlock + b / keyBlock) * slots + slot + j;
                FloatVector blockScales = FloatVector.fromArray(F, ks, scaleAt);
                FloatVector nextBlockScales = FloatVector.fromArray(F, ks, scaleAt + W);
                total0 = acc0.fma(blockScales, total0);
                total1 = acc1.fma(blockScales, total1);
                total2 = acc2.fma(nextBlockScales, total2);
                total3 = acc3.fma(nextBlockScales, total3);
            }
            total0.mul(scale).intoArray(s0, sOff + j);
            total1.mul(scale).intoArray(s1, sOff + j);
            total2.mul(scale).intoArray(s0, sOff + j + W);
            total3.mul(scale).intoArray(s1, sOff + j + W);
        }
        for (; j < whole; j += W) {
            FloatVector total0 = FloatVector.zero(F), total1 = total0;
            for (int b = 0; b < keyHeadDim; b += keyBlock) {
                FloatVector acc0 = FloatVector.zero(F), acc1 = acc0;
                for (int d = b, end = Math.min(b + keyBlock, keyHeadDim); d < end; d++) {
                    FloatVector key = widen(kt, (dimOff + d) * slots + slot + j);
                    acc0 = key.fma(FloatVector.broadcast(F, q[qOff + d]), acc0);
                    acc1 = key.fma(FloatVector.broadcast(F, q[q1 + d]), acc1);
                }
                FloatVector blockScales = FloatVector.fromArray(F, ks, (firstBlock + b / keyBlock) * slots + slot + j);
                total0 = acc0.fma(blockScales, total0);
                total1 = acc1.fma(blockScales, total1);
            }
            total0.mul(scale).intoArray(s0, sOff + j);
            total1.mul(scale).intoArray(s1, sOff + j);
        }
        if (whole < run) {
            tailScores(layer, slot + whole, run - whole, head, q, qOff, scale, s0, sOff + whole);
            tailScores(layer, slot + whole, run - whole, head, q, q1, scale, s1, sOff + whole);
        }
    }

    @Override
    public void accumulate(int layer, int from, int to, int head, float[] w, int wOff, float[] out, int outOff) {
        for (int p = from; p < to; ) {
            int slot = slot(p);
            int run = runLength(slot, to - p);
            slotAccumulate(layer, slot, run, head, w, wOff + p - from, out, outOff);
            p += run;
        }
    }

    /**
     * {@code run} consecutive slots from {@code slot}; per vector of dimensions the slots are added in
     * order, then per dimension past the head's last whole vector. A vector never straddles two scale
     * valueBlocks: it starts at a multiple of W (a divisor of 32) from the head's first dimension.
     */
    private void slotAccumulate(int layer, int slot, int run, int head, float[] w, int wOff, float[] out, int outOff) {
        byte[] value = values[layer];
        float[] vs = valueScales[layer];
        int dimOff = head * valueHeadDim, firstBlock = head * valueHeadBlocks, body = valueHeadDim & -W;
        for (int i = 0; i < body; i += W) {
            FloatVector acc = FloatVector.fromArray(F, out, outOff + i);
            int at = slot * valueDim + dimOff + i, scaleAt = slot * valueBlocks + firstBlock + i / valueBlock;
            for (int j = 0; j < run; j++, at += valueDim, scaleAt += valueBlocks) {
                acc = widen(value, at).fma(FloatVector.broadcast(F, w[wOff + j] * vs[scaleAt]), acc);
            }
            acc.intoArray(out, outOff + i);
        }
        for (int i = body; i < valueHeadDim; i++) {
            float acc = out[outOff + i];
            int at = slot * valueDim + dimOff + i, scaleAt = slot * valueBlocks + firstBlock + i / valueBlock;
            for (int j = 0; j < run; j++, at += valueDim, scaleAt += valueBlocks) acc = Math.fma(value[at], w[wOff + j] * vs[scaleAt], acc);
            out[outOff + i] = acc;
        }
    }

    @Override
    public void accumulate2(int layer, int from, int to, int head, float[] w0, float[] w1, int wOff, float[] out, int outOff) {
        for (int p = from; p < to; ) {
            int slot = slot(p);
            int run = runLength(slot, to - p);
            slotAccumulate2(layer, slot, run, head, w0, w1, wOff + p - from, out, outOff);
            p += run;
        }
    }

    /**
     * {@link #slotAccumulate} for two queries, each widened value feeding both (same arithmetic per query).
     * Four vectors of dimensions at a time where the head allows: eight accumulation chains instead of
     * two, each lane still adding the slots in order.
     */
    private void slotAccumulate2(int layer, int slot, int run, int head, float[] w0, float[] w1, int wOff, float[] out, int outOff) {
        byte[] value = values[layer];
        float[] vs = valueScales[layer];
        int dimOff = head * valueHeadDim, firstBlock = head * valueHeadBlocks, body = valueHeadDim & -W;
        int o1 = outOff + valueHeadDim;
        int i = 0;
        for (; i + 4 * W <= body; i += 4 * W) {
            FloatVector a0 = FloatVector.fromArray(F, out, outOff + i);
            FloatVector a1 = FloatVector.fromArray(F, out, outOff + i + W);
            FloatVector a2 = FloatVector.fromArray(F, out, outOff + i + 2 * W);
            FloatVector a3 = FloatVector.fromArray(F, out, outOff + i + 3 * W);
            FloatVector b0 = FloatVector.fromArray(F, out, o1 + i);
            FloatVector b1 = FloatVector.fromArray(F, out, o1 + i + W);
            FloatVector b2 = FloatVector.fromArray(F, out, o1 + i + 2 * W);
            FloatVector b3 = FloatVector.fromArray(F, out, o1 + i + 3 * W);
            int at = slot * valueDim + dimOff + i, scaleAt = slot * valueBlocks + firstBlock;
            int block0 = i / valueBlock, block1 = (i + W) / valueBlock, block2 = (i + 2 * W) / valueBlock, block3 = (i + 3 * W) / valueBlock;
            for (int j = 0; j < run; j++, at += valueDim, scaleAt += valueBlocks) {
                float x0 = w0[wOff + j], x1 = w1[wOff + j];
                float s0 = vs[scaleAt + block0], s1 = vs[scaleAt + block1], s2 = vs[scaleAt + block2], s3 = vs[scaleAt + block3];
                FloatVector v0 = widen(value, at), v1 = widen(value, at + W), v2 = widen(value, at + 2 * W),
                        v3 = widen(value, at + 3 * W);
                a0 = v0.fma(FloatVector.broadcast(F, x0 * s0), a0);
                b0 = v0.fma(FloatVector.broadcast(F, x1 * s0), b0);
                a1 = v1.fma(FloatVector.broadcast(F, x0 * s1), a1);
                b1 = v1.fma(FloatVector.broadcast(F, x1 * s1), b1);
                a2 = v2.fma(FloatVector.broadcast(F, x0 * s2), a2);
                b2 = v2.fma(FloatVector.broadcast(F, x1 * s2), b2);
                a3 = v3.fma(FloatVector.broadcast(F, x0 * s3), a3);
                b3 = v3.fma(FloatVector.broadcast(F, x1 * s3), b3);
            }
            a0.intoArray(out, outOff + i);
            a1.intoArray(out, outOff + i + W);
            a2.intoArray(out, outOff + i + 2 * W);
            a3.intoArray(out, outOff + i + 3 * W);
            b0.intoArray(out, o1 + i);
            b1.intoArray(out, o1 + i + W);
            b2.intoArray(out, o1 + i + 2 * W);
            b3.intoArray(out, o1 + i + 3 * W);
        }
        for (; i < body; i += W) {
            FloatVector acc0 = FloatVector.fromArray(F, out, outOff + i);
            FloatVector acc1 = FloatVector.fromArray(F, out, o1 + i);
            int at = slot * valueDim + dimOff + i, scaleAt = slot * valueBlocks + firstBlock + i / valueBlock;
            for (int j = 0; j < run; j++, at += valueDim, scaleAt += valueBlocks) {
                FloatVector v = widen(value, at);
                float blockScale = vs[scaleAt];
                acc0 = v.fma(FloatVector.broadcast(F, w0[wOff + j] * blockScale), acc0);
                acc1 = v.fma(FloatVector.broadcast(F, w1[wOff + j] * blockScale), acc1);
            }
            acc0.intoArray(out, outOff + i);
            acc1.intoArray(out, o1 + i);
        }
        for (; i < valueHeadDim; i++) {
            float acc0 = out[outOff + i], acc1 = out[o1 + i];
            int at = slot * valueDim + dimOff + i, scaleAt = slot * valueBlocks + firstBlock + i / valueBlock;
            for (int j = 0; j < run; j++, at += valueDim, scaleAt += valueBlocks) {
                float v = value[at], blockScale = vs[scaleAt];
                acc0 = Math.fma(v, w0[wOff + j] * blockScale, acc0);
                acc1 = Math.fma(v, w1[wOff + j] * blockScale, acc1);
            }
            out[outOff + i] = acc0;
            out[o1 + i] = acc1;
        }
    }

    @Override
    public long bytes() {
        return (long) layers * slots * (keyDim + valueDim + (long) (keyBlocks + valueBlocks) * Float.BYTES);
    }
}
