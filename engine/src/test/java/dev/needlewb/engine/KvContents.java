package dev.needlewb.engine;

import dev.needlewb.engine.cache.KvCache;

/**
 * Reads back what a {@link KvCache} holds for a position through its public score and accumulate
 * operations (test helper): a one-hot query of scale 1 over a kv head yields one stored key value (int8:
 * code x scale), a weight of 1 on one position yields its value row.
 */
final class KvContents {
    private KvContents() {}

    static float[] key(KvCache cache, int layer, int pos, int kvHeads, int headDim) {
        float[] out = new float[kvHeads * headDim];
        float[] q = new float[headDim];
        float[] score = new float[1];
        for (int head = 0; head < kvHeads; head++) {
            for (int i = 0; i < headDim; i++) {
                java.util.Arrays.fill(q, 0f);
                q[i] = 1f;
                cache.scores(layer, pos, pos + 1, head, q, 0, 1f, score, 0);
                out[head * headDim + i] = score[0];
            }
        }
        return out;
    }

    static float[] value(KvCache cache, int layer, int pos, int kvHeads, int headDim) {
        float[] out = new float[kvHeads * headDim];
        for (int head = 0; head < kvHeads; head++) {
            cache.accumulate(layer, pos, pos + 1, head, new float[] {1f}, 0, out, head * headDim);
        }
        return out;
    }
}
