package dev.needlewb.engine.layer;

/**
 * Causal grouped-query attention of one new position over the cache: query head {@code h} reads
 * kv head {@code h / (heads / kvHeads)}; scores {@code q.k / sqrt(headDim)} over the visible keys
 * (the pinned sinks before the window, then the window up to the query), softmax, weighted sum of values.
 */
public final class Attention {
    private final int heads;
    private final int kvHeads;
    private final int headDim;
    private final float[] scores;

    public Attention(int heads, int kvHeads, int headDim, int maxPositions) {
        if (headDim % 16 != 0) throw new IllegalArgumentException("head_dim " + headDim + " is not a multiple of 16 lanes");
        this.heads = heads;
        this.kvHeads = kvHeads;
        this.headDim = headDim;
        this.scores = new float[maxPositions];
    }

    /** {@code out[heads * headDim] = attention(q)} for the query at {@code pos} (already in the cache). */
    public void attend(KvCache cache, int layer, int pos, float[] q, float[] out) {
        java.util.Arrays.fill(out, 0, heads * headDim, 0f);
        int start = cache.windowStart(pos);
        int sinkEnd = Math.min(cache.sinks(), start);
        int n = sinkEnd + pos + 1 - start;
        float scale = (float) (1.0 / Math.sqrt(headDim));
        int group = heads / kvHeads;
        for (int h = 0; h < heads; h++) {
            int kvOff = (h / group) * headDim;
            int qOff = h * headDim;
            cache.scores(layer, 0, sinkEnd, kvOff, headDim, q, qOff, scale, scores, 0);
            cache.scores(layer, start, pos + 1, kvOff, headDim, q, qOff, scale, scores, sinkEnd);
            float max = Float.NEGATIVE_INFINITY;
            for (int i = 0; i < n; i++) max = Math.max(max, scores[i]);
            float sum = 0f;
            for (int i = 0; i < n; i++) sum += scores[i] = (float) Math.exp(scores[i] - max);
            float inv = 1f / sum;
            for (int i = 0; i < n; i++) scores[i] *= inv;
            cache.accumulate(layer, 0, sinkEnd, kvOff, headDim, scores, 0, out, qOff);
            cache.accumulate(layer, start, pos + 1, kvOff, headDim, scores, sinkEnd, out, qOff);
        }
    }
}
