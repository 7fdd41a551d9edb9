package dev.needlewb.engine.layer;

/**
 * Causal grouped-query attention of one new position over the cache: query head {@code h} reads
 * kv head {@code h / (heads / kvHeads)}; scores {@code q.k / sqrt(headDim)} over the visible keys
 * (the window plus the pinned sinks), softmax, weighted sum of values.
 */
public final class Attention {
    private final int heads;
    private final int kvHeads;
    private final int headDim;
    private final float[] scores;

    public Attention(int heads, int kvHeads, int headDim, int maxPositions) {
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
        float scale = (float) (1.0 / Math.sqrt(headDim));
        int group = heads / kvHeads;
        for (int h = 0; h < heads; h++) {
            int kvOff = (h / group) * headDim;
            int qOff = h * headDim;
            float max = Float.NEGATIVE_INFINITY;
            int n = 0;
            for (int p = 0; p < sinkEnd; p++, n++) max = Math.max(max, scores[n] = cache.dotKey(layer, p, kvOff, headDim, q, qOff) * scale);
            for (int p = start; p <= pos; p++, n++) max = Math.max(max, scores[n] = cache.dotKey(layer, p, kvOff, headDim, q, qOff) * scale);
            float sum = 0f;
            for (int i = 0; i < n; i++) sum += scores[i] = (float) Math.exp(scores[i] - max);
            float inv = 1f / sum;
            n = 0;
            for (int p = 0; p < sinkEnd; p++, n++) cache.addValue(layer, p, kvOff, headDim, scores[n] * inv, out, qOff);
            for (int p = start; p <= pos; p++, n++) cache.addValue(layer, p, kvOff, headDim, scores[n] * inv, out, qOff);
        }
    }
}
