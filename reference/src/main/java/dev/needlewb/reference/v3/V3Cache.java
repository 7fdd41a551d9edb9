package dev.needlewb.reference.v3;

import dev.needlewb.converter.flax.v3.V3Config;

/**
 * What a Needle 3 forward keeps between calls, per layer: the attention keys [kv head][position][qk]
 * (after k_norm, RoPE and any KV rounding) and values [kv head][position][v] of every position
 * so far, and the raw (pre-conv) q/k/v projections of the last {@code qkv_conv_taps - 1}
 * positions, a ring indexed by position, for the QKV conv of the next call. A local layer's
 * attention reads only the keys of its window; their storage is kept whole so that one call may
 * append any number of positions.
 */
final class V3Cache {
    /** The three conv streams of the tail ring. */
    static final int Q = 0, K = 1, V = 2;

    private final int capacity;
    private final int kvHeads;
    private final int qk;
    private final int vd;
    private final int tail;
    private final double[][][] keys;
    private final double[][][] values;
    private final double[][][] convTail;

    V3Cache(V3Config c, int capacity) {
        this.capacity = capacity;
        this.kvHeads = c.numKvHeads();
        this.qk = c.qkDim();
        this.vd = c.vDim();
        this.tail = Math.max(0, c.qkvConvTaps() - 1);
        int layers = c.numLayers();
        this.keys = new double[layers][kvHeads][Math.multiplyExact(capacity, qk)];
        this.values = new double[layers][kvHeads][Math.multiplyExact(capacity, vd)];
        int[] widths = {c.numHeads() * qk, kvHeads * qk, kvHeads * vd};
        this.convTail = new double[layers][3][];
        for (int l = 0; l < layers; l++) for (int s = 0; s < 3; s++) convTail[l][s] = new double[tail * widths[s]];
    }

    int capacity() {
        return capacity;
    }

    /** Live [capacity, qk] key rows of one layer and kv head. */
    double[] keys(int layer, int head) {
        return keys[layer][head];
    }

    /** Live [capacity, v] value rows. */
    double[] values(int layer, int head) {
        return values[layer][head];
    }

    /** The ring of raw rows of {@code stream} (Q, K, V): position p at row {@code p % (taps - 1)}. */
    double[] convTail(int layer, int stream) {
        return convTail[layer][stream];
    }

    /** The ring length: {@code qkv_conv_taps - 1} (0 without conv). */
    int tailRows() {
        return tail;
    }
}
