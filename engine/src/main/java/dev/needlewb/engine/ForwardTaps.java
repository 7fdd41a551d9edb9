package dev.needlewb.engine;

import java.util.Arrays;

/**
 * Hands the forward's intermediates, row-major arrays of one row per position, to a {@link TapSink} one
 * position at a time. A layer's tap names are made once: a forward without a sink pays one null check per
 * tap site and builds no string.
 */
final class ForwardTaps {
    /** The taps of a block, in the order a block records them (as {@code layerNN.<name>}). */
    enum Block {
        LANES_IN("lanes_in"), HPRE("hpre"), U("u"), ENGRAM_ALPHA("engram_alpha"), ATTN_Q_CONV("attn.q_conv"), ATTN_K_CONV("attn.k_conv"),
        ATTN_V_CONV("attn.v_conv"), ATTN_Q("attn.q"), ATTN_K("attn.k"), ATTN_V("attn.v"), ATTN_OUT("attn.out"), MLP_IN("mlp.in"),
        MLP_OUT("mlp.out"), BLOCK_OUT("block_out"), HPOST("hpost"), SINKHORN("sinkhorn"), LANES_OUT("lanes_out");

        private final String suffix;

        Block(String suffix) {
            this.suffix = suffix;
        }
    }

    static final ForwardTaps NONE = new ForwardTaps(null, new String[0]);

    private final TapSink sink;
    /** {@code names[layer][tap]}. */
    private final String[][] names;
    private int first, rows;

    /** Records into {@code sink} (null: nothing) under the layers' name prefixes {@code layerNames} ({@code layerNN.}). */
    ForwardTaps(TapSink sink, String[] layerNames) {
        this.sink = sink;
        this.names = new String[sink == null ? 0 : layerNames.length][];
        for (int l = 0; l < names.length; l++) {
            names[l] = new String[Block.values().length];
            for (Block tap : Block.values()) names[l][tap.ordinal()] = layerNames[l] + tap.suffix;
        }
    }

    /** The positions of the rows recorded next: {@code first .. first + rows - 1}. */
    void positions(int first, int rows) {
        this.first = first;
        this.rows = rows;
    }

    boolean wants(String name) {
        return sink != null && sink.wants(name);
    }

    /** Records {@code values[off + r * stride, + n)} as position {@code first + r}, shape {@code [n]}, for each row {@code r}. */
    void record(String name, float[] values, int off, int stride, int n) {
        if (wants(name)) recordRows(name, rows, values, off, stride, n, n, -1);
    }

    /** {@link #record(String, float[], int, int, int)} of shape {@code [n, m]}. */
    void record(String name, float[] values, int off, int stride, int n, int m) {
        if (wants(name)) recordRows(name, rows, values, off, stride, n * m, n, m);
    }

    /** {@link #record(String, float[], int, int, int)} of a block's tap. */
    void record(int layer, Block tap, float[] values, int off, int stride, int n) {
        if (sink != null) record(names[layer][tap.ordinal()], values, off, stride, n);
    }

    void record(int layer, Block tap, float[] values, int off, int stride, int n, int m) {
        if (sink != null) record(names[layer][tap.ordinal()], values, off, stride, n, m);
    }

    /** The logits and final norm, computed for the last {@code count} rows only. */
    void recordLast(String name, int count, float[] values, int n) {
        if (!wants(name)) return;
        int skipped = rows - count;
        for (int r = 0; r < count; r++) sink.record(name, first + skipped + r, Arrays.copyOfRange(values, r * n, (r + 1) * n), n);
    }

    private void recordRows(String name, int count, float[] values, int off, int stride, int length, int n, int m) {
        for (int r = 0; r < count; r++) {
            float[] row = Arrays.copyOfRange(values, off + r * stride, off + r * stride + length);
            if (m < 0) sink.record(name, first + r, row, n);
            else sink.record(name, first + r, row, n, m);
        }
    }
}
