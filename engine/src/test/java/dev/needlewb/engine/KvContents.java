package dev.needlewb.engine;

import dev.needlewb.engine.layer.KvCache;

/**
 * Reads back what a {@link KvCache} holds for a position through its public score and accumulate
 * operations (test helper): a one-hot query of scale 1 yields one stored key value (kv_dim a multiple of 32) (int8: code x
 * scale), a weight of 1 on one position yields its value row.
 */
final class KvContents {
    /** Queries span one int8 scale block (a multiple of the float cache's 16 lanes too). */
    private static final int BLOCK = 32;

    private KvContents() {}

    static float[] key(KvCache cache, int layer, int pos, int kvDim) {
        float[] out = new float[kvDim];
        float[] q = new float[BLOCK];
        float[] score = new float[1];
        for (int block = 0; block < kvDim; block += BLOCK) {
            for (int i = 0; i < BLOCK; i++) {
                java.util.Arrays.fill(q, 0f);
                q[i] = 1f;
                cache.scores(layer, pos, pos + 1, block, BLOCK, q, 0, 1f, score, 0);
                out[block + i] = score[0];
            }
        }
        return out;
    }

    static float[] value(KvCache cache, int layer, int pos, int kvDim) {
        float[] out = new float[kvDim];
        cache.accumulate(layer, pos, pos + 1, 0, kvDim, new float[] {1f}, 0, out, 0);
        return out;
    }
}
