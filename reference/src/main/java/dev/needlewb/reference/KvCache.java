package dev.needlewb.reference;

import dev.needlewb.core.io.NpyArray;

/**
 * The attention keys and values of every layer, [layer][kv head][position][head_dim]: K after
 * k_norm and RoPE (and after any KV rounding), V the plain projection (likewise rounded).
 */
public final class KvCache {
    private final int kvHeads;
    private final int headDim;
    private final int capacity;
    private final double[][][] keys;
    private final double[][][] values;

    KvCache(int layers, int kvHeads, int headDim, int capacity) {
        this.kvHeads = kvHeads;
        this.headDim = headDim;
        this.capacity = capacity;
        this.keys = new double[layers][kvHeads][capacity * headDim];
        this.values = new double[layers][kvHeads][capacity * headDim];
    }

    public int capacity() {
        return capacity;
    }

    /** Live [capacity, head_dim] key rows of one layer and kv head. */
    double[] keys(int layer, int head) {
        return keys[layer][head];
    }

    double[] values(int layer, int head) {
        return values[layer][head];
    }

    /** The keys of positions [0, length) as an npy array [layers, kv_heads, length, head_dim]. */
    public NpyArray keysNpy(int length) {
        return export(keys, length);
    }

    /** The values of positions [0, length) as an npy array [layers, kv_heads, length, head_dim]. */
    public NpyArray valuesNpy(int length) {
        return export(values, length);
    }

    private NpyArray export(double[][][] cache, int length) {
        if (length < 0 || length > capacity) throw new IllegalArgumentException("length " + length + " outside [0, " + capacity + "]");
        int layers = cache.length;
        double[] out = new double[layers * kvHeads * length * headDim];
        int o = 0;
        for (double[][] layer : cache) {
            for (double[] head : layer) {
                System.arraycopy(head, 0, out, o, length * headDim);
                o += length * headDim;
            }
        }
        return NpyArray.ofDoubles(new int[] {layers, kvHeads, length, headDim}, out);
    }
}
