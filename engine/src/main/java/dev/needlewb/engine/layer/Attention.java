package dev.needlewb.engine.layer;

import dev.needlewb.engine.cache.KvCache;
import dev.needlewb.engine.kernel.Lanes;
import dev.needlewb.engine.kernel.RowPool;

/**
 * Causal grouped-query attention of one new position over the cache: query head {@code h} reads
 * kv head {@code h / (heads / kvHeads)}; scores {@code q.k / sqrt(keyHeadDim)} over the visible keys
 * (the pinned sinks before the window, then the window up to the query), softmax, weighted sum of values.
 * Each kv head is one ticket of the pool; every head's arithmetic is the same whatever thread runs it.
 * The softmax is {@link Softmax#ofKeys} under the session's exponential.
 */
public final class Attention {
    /** Scores held from the first step: the keys of the released geometry's window (256) and more. */
    private static final int INITIAL_SCORES = 256 + Lanes.LOGICAL;
    private final int heads;
    private final int kvHeads;
    private final int keyHeadDim, valueHeadDim;
    private final float scale;
    private final RowPool pool;
    private final Arithmetic.Exponential exp;
    /** Per thread: one query head's scores (and its pair's), as long as the most keys a query has seen so far. */
    private final float[][] scores;
    private final float[][] pairScores;
    private final RowPool.Tickets byKvHead = this::kvHead;
    private KvCache cache;
    private int layer;
    private int pos;
    private float[] q;
    private int qBase;
    private float[] out;
    private int outBase;

    /** Query and key heads of {@code keyHeadDim}, value heads (and outputs) of {@code valueHeadDim}. */
    public Attention(int heads, int kvHeads, int keyHeadDim, int valueHeadDim, RowPool pool, Arithmetic.Exponential exp) {
        this.heads = heads;
        this.kvHeads = kvHeads;
        this.keyHeadDim = keyHeadDim;
        this.valueHeadDim = valueHeadDim;
        this.scale = (float) (1.0 / Math.sqrt(keyHeadDim));
        this.pool = pool;
        this.exp = exp;
        this.scores = new float[pool.threads()][0];
        this.pairScores = new float[pool.threads()][0];
    }

    /**
     * {@code out[outOff, + heads * valueHeadDim) = attention(q[qOff, + heads * keyHeadDim))} for the query at
     * {@code pos} (already in the cache).
     */
    public void attend(KvCache cache, int layer, int pos, float[] q, int qOff, float[] out, int outOff) {
        this.cache = cache;
        this.layer = layer;
        this.pos = pos;
        this.q = q;
        this.qBase = qOff;
        this.out = out;
        this.outBase = outOff;
        reserveScores(cache.visibility().sinkEnd(pos) + pos + 1 - cache.visibility().windowStart(pos));
        pool.run(kvHeads, byKvHead);
    }

    /**
     * Room for {@code keys} scores and the softmax's padding to whole vectors, grown (doubling) with the
     * keys a query sees rather than sized for the longest session up front.
     */
    private void reserveScores(int keys) {
        int needed = keys + Lanes.W;
        if (scores[0].length >= needed) return;
        int length = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(Math.max(needed, INITIAL_SCORES), 2L * scores[0].length));
        for (int t = 0; t < scores.length; t++) {
            scores[t] = new float[length];
            pairScores[t] = new float[length];
        }
    }

    /** The kv head's query heads two at a time (so a cache reads each key and value once for both), then any odd one. */
    private void kvHead(int kv, int thread) {
        int group = heads / kvHeads;
        int h = kv * group;
        for (; h + 2 <= (kv + 1) * group; h += 2) headPair(h, kv, scores[thread], pairScores[thread]);
        if (h < (kv + 1) * group) head(h, kv, scores[thread]);
    }

    private void head(int h, int kv, float[] s) {
        int qOff = qBase + h * keyHeadDim, outOff = outBase + h * valueHeadDim;
        java.util.Arrays.fill(out, outOff, outOff + valueHeadDim, 0f);
        int start = cache.visibility().windowStart(pos);
        int sinkEnd = cache.visibility().sinkEnd(pos);
        cache.scores(layer, 0, sinkEnd, kv, q, qOff, scale, s, 0);
        cache.scores(layer, start, pos + 1, kv, q, qOff, scale, s, sinkEnd);
        softmax(s, sinkEnd + pos + 1 - start);
        cache.accumulate(layer, 0, sinkEnd, kv, s, 0, out, outOff);
        cache.accumulate(layer, start, pos + 1, kv, s, sinkEnd, out, outOff);
    }

    /** Query heads {@code h} and {@code h + 1}, each with exactly the arithmetic of {@link #head}. */
    private void headPair(int h, int kv, float[] s0, float[] s1) {
        int qOff = qBase + h * keyHeadDim, outOff = outBase + h * valueHeadDim;
        java.util.Arrays.fill(out, outOff, outOff + 2 * valueHeadDim, 0f);
        int start = cache.visibility().windowStart(pos);
        int sinkEnd = cache.visibility().sinkEnd(pos);
        int n = sinkEnd + pos + 1 - start;
        cache.scores2(layer, 0, sinkEnd, kv, q, qOff, scale, s0, s1, 0);
        cache.scores2(layer, start, pos + 1, kv, q, qOff, scale, s0, s1, sinkEnd);
        softmax(s0, n);
        softmax(s1, n);
        cache.accumulate2(layer, 0, sinkEnd, kv, s0, s1, 0, out, outOff);
        cache.accumulate2(layer, start, pos + 1, kv, s0, s1, sinkEnd, out, outOff);
    }

    private void softmax(float[] s, int n) {
        Softmax.ofKeys(s, n, exp);
    }
}
