package dev.needlewb.engine;

import dev.needlewb.engine.cache.KvCache;
import dev.needlewb.engine.cache.LayerCaches;
import dev.needlewb.engine.cache.Visibility;
import dev.needlewb.engine.kernel.RowPool;
import dev.needlewb.engine.layer.Arithmetic;
import dev.needlewb.engine.layer.Softmax;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Causal attention of a prompt's positions from 0 over their own keys and values, in float32 on
 * {@link DenseWeights}' packed kernel: per query head the scores {@code q K^T} on the key panels each
 * block of queries can see, the masked softmax under the layer's window ({@link Softmax#ofRow}), its product
 * with the values (keys past a block's last query have weight 0 and are skipped), gated. Query and key heads
 * are qk_head_dim wide, value heads v_head_dim. The keys and values are handed to the session's cache of the
 * layer as they are made (an int8 cache quantizes them as its own). Heads split over the pool.
 */
final class DenseAttention {
    private static final int PANEL = DenseWeights.PANEL, BLOCK = DenseWeights.BLOCK;
    private static final Arithmetic.Exponential EXP = Arithmetic.VECTOR.exp();

    private final RowPool pool;
    private final EngineShape shape;
    private final LayerCaches caches;
    private final int t, heads, kvHeads, headDim, valueHeadDim, group, qDim, kvDim, valueDim, qkvgDim;
    /** Rotated queries scaled by 1/sqrt(qk_head_dim) as [heads, T, qk_head_dim] (the kernel reads each head's rows); keys [T, k_dim], values [T, v_dim]. */
    private final float[] queries, k, v;
    private final MemorySegment keySegment, valueSegment;
    /** Panels of positions (keys) and of head dims (values), and the row strides of the scores and head outputs. */
    private final int keyPanelCount, valuePanelCount, keyStride, valueStride;
    /** Per thread: attention weights [T, keyStride] and one head's output [T, valueStride]. */
    private final float[][] scores, headOuts;

    /** Buffers for a prompt of {@code t} positions; the packed keys and values off-heap in {@code arena}. */
    DenseAttention(EngineShape g, RowPool pool, LayerCaches caches, int t, Arena arena) {
        this.pool = pool;
        this.shape = g;
        this.caches = caches;
        this.t = t;
        heads = g.numHeads();
        kvHeads = g.numKvHeads();
        headDim = g.qkHeadDim();
        valueHeadDim = g.vHeadDim();
        group = heads / kvHeads;
        qDim = g.qDim();
        kvDim = g.kDim();
        valueDim = g.vDim();
        qkvgDim = g.qkvgDim();
        queries = new float[t * qDim];
        k = new float[t * kvDim];
        v = new float[t * valueDim];
        keyPanelCount = (t + PANEL - 1) / PANEL;
        valuePanelCount = (valueHeadDim + PANEL - 1) / PANEL;
        keyStride = keyPanelCount * PANEL;
        valueStride = valuePanelCount * PANEL;
        // Off-heap like the weights: the kernel then only ever sees native segments (a heap segment
        // there too made its loads bimorphic and the weight products measurably slower).
        keySegment = arena.allocate((long) kvHeads * keyPanelCount * headDim * PANEL * Float.BYTES, 64);
        valueSegment = arena.allocate((long) kvHeads * valuePanelCount * t * PANEL * Float.BYTES, 64);
        scores = new float[pool.threads()][t * keyStride];
        headOuts = new float[pool.threads()][t * valueStride];
    }

    /** {@code o = attention(q) * sigmoid(gate)} for every position of {@code qkvg} [T, q | k | v | gate]; stores k and v in the cache. */
    void attend(int layer, float[] qkvg, float[] o) {
        float scale = (float) (1.0 / Math.sqrt(headDim));
        KvCache cache = caches.cache(layer);
        int index = caches.index(layer);
        pool.ranges(t, (from, to, thread) -> {
            for (int pos = from; pos < to; pos++) {
                int at = pos * qkvgDim;
                System.arraycopy(qkvg, at + shape.kAt(), k, pos * kvDim, kvDim);
                System.arraycopy(qkvg, at + shape.vAt(), v, pos * valueDim, valueDim);
                for (int h = 0; h < heads; h++) {
                    int dst = ((h * t) + pos) * headDim;
                    for (int i = 0; i < headDim; i++) queries[dst + i] = qkvg[at + h * headDim + i] * scale;
                }
            }
        });
        pool.ranges(t, (from, to, thread) -> cache.writePrompt(index, t, k, v, from, to));
        pool.ranges(kvHeads, (from, to, thread) -> packKeysValues(from, to));
        Visibility visibility = cache.visibility();
        pool.ranges(heads, (from, to, thread) -> {
            for (int h = from; h < to; h++) attendHead(h, visibility, qkvg, scores[thread], headOuts[thread], o);
        });
    }

    /** Keys and values of kv heads {@code [from, to)} in the kernel's packed layout (padding stays zero). */
    private void packKeysValues(int from, int to) {
        for (int kh = from; kh < to; kh++) {
            for (int pos = 0; pos < t; pos++) {
                for (int i = 0; i < headDim; i++) {
                    int src = pos * kvDim + kh * headDim + i;
                    keySegment.setAtIndex(ValueLayout.JAVA_FLOAT, ((kh * keyPanelCount + pos / PANEL) * headDim + i) * PANEL + pos % PANEL, k[src]);
                }
                for (int i = 0; i < valueHeadDim; i++) {
                    int src = pos * valueDim + kh * valueHeadDim + i;
                    valueSegment.setAtIndex(ValueLayout.JAVA_FLOAT, ((kh * valuePanelCount + i / PANEL) * t + pos) * PANEL + i % PANEL, v[src]);
                }
            }
        }
    }

    /** Query head {@code h} over all positions under {@code visibility}, gated into its columns of {@code o}. */
    private void attendHead(int h, Visibility visibility, float[] qkvg, float[] weights, float[] headOut, float[] o) {
        int kh = h / group, q0 = h * t * headDim;
        long keyPanelBytes = (long) headDim * PANEL * Float.BYTES, valuePanelBytes = (long) t * PANEL * Float.BYTES;
        long keyBase = kh * keyPanelCount * keyPanelBytes, valueBase = kh * valuePanelCount * valuePanelBytes;
        int r = 0;
        for (; r + BLOCK <= t; r += BLOCK) {
            for (int p = 0; p <= (r + BLOCK - 1) / PANEL; p++) {
                DenseWeights.block(queries, q0 + r * headDim, headDim, keySegment, keyBase + p * keyPanelBytes, headDim,
                        weights, r * keyStride + p * PANEL, keyStride);
            }
        }
        for (; r < t; r++) {
            for (int p = 0; p <= r / PANEL; p++) {
                DenseWeights.row(queries, q0 + r * headDim, keySegment, keyBase + p * keyPanelBytes, headDim, weights, r * keyStride + p * PANEL);
            }
        }
        for (r = 0; r < t; r++) Softmax.ofRow(weights, r * keyStride, t, visibility, r);
        for (r = 0; r + BLOCK <= t; r += BLOCK) {
            for (int p = 0; p < valuePanelCount; p++) {
                DenseWeights.block(weights, r * keyStride, keyStride, valueSegment, valueBase + p * valuePanelBytes, r + BLOCK,
                        headOut, r * valueStride + p * PANEL, valueStride);
            }
        }
        for (; r < t; r++) {
            for (int p = 0; p < valuePanelCount; p++) {
                DenseWeights.row(weights, r * keyStride, valueSegment, valueBase + p * valuePanelBytes, r + 1, headOut, r * valueStride + p * PANEL);
            }
        }
        int attnDim = shape.attnDim();
        for (int pos = 0; pos < t; pos++) {
            AttentionGate.head(shape, h, headOut, pos * valueStride, qkvg, pos * qkvgDim + shape.gateAt(), EXP, o, pos * attnDim + h * valueHeadDim);
        }
    }
}
