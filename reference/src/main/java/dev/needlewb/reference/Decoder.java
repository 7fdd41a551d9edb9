package dev.needlewb.reference;

import dev.needlewb.core.io.NpyArray;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.SequencedMap;

/**
 * The cached decode path of upstream {@code decode._forward_cached}: an explicit KV cache of
 * {@code capacity} positions, calls that each append one or more tokens at the current position
 * (a prefill is one call on the whole prompt), attention over the cached keys that are causal and
 * inside the window or a sink. The engram of a call reads the token history before it (its conv
 * reaches back taps x dilation positions); engram validity is causal only, as upstream's all-true
 * {@code hist_valid}, whatever the window.
 *
 * <p>Options: {@code window} and {@code sinks} as upstream; {@code int8Kv} rounds every cached
 * K/V row; {@code quant} (not upstream: the cached path has no fake quant) adds the A8 rounding.
 * Not stateless: one decoder per sequence.
 */
public final class Decoder implements CachedDecoder {
    private final ReferenceModel model;
    private final KvCache cache;
    private final int[] history;
    private final Mask mask;
    private final RunSettings settings;
    private int length;

    Decoder(ReferenceModel model, int capacity, ForwardOptions options) {
        if (capacity <= 0) throw new IllegalArgumentException("capacity " + capacity + " is not positive");
        if (options.segmentIds() != null || options.maskPadding()) {
            throw new IllegalArgumentException("the cached decode path has no packing or padding mask");
        }
        if (!options.taps().isOff()) {
            throw new IllegalArgumentException("taps are recorded by the full-sequence forward only");
        }
        var g = model.geometry();
        this.model = model;
        this.cache = new KvCache(g.numLayers(), g.numKvHeads(), g.headDim(), capacity);
        this.history = new int[capacity];
        this.mask = Mask.decode(options.window(), options.sinks());
        this.settings = RunSettings.of(options);
    }

    /** Runs the prompt from position 0; the logits [T][vocab] of every prompt position. */
    @Override
    public double[][] prefill(int[] tokens) {
        if (length != 0) throw new IllegalStateException("prefill on a decoder already at position " + length);
        return append(tokens);
    }

    /** Appends one token; the logits [vocab] after it. */
    @Override
    public double[] step(int token) {
        return append(new int[] {token})[0];
    }

    /** Appends {@code tokens} at the current position in one call; their logits [S][vocab]. */
    public double[][] append(int[] tokens) {
        model.checkTokens(tokens);
        if (length + tokens.length > cache.capacity()) {
            throw new IllegalStateException("decoder capacity " + cache.capacity() + " exceeded: at " + length
                    + ", appending " + tokens.length);
        }
        int pos = length;
        System.arraycopy(tokens, 0, history, pos, tokens.length);
        int[] seen = Arrays.copyOf(history, pos + tokens.length);
        double[] h = model.trunk().run(seen, pos, tokens.length, cache, mask, Mask.CAUSAL, settings, null);
        length += tokens.length;
        var g = model.geometry();
        return model.logits(Norms.zcnRows(h, tokens.length, g.dModel(), model.finalNorm()), tokens.length, pos,
                settings, "");
    }

    /** The number of positions decoded so far. */
    public int length() {
        return length;
    }

    public int capacity() {
        return cache.capacity();
    }

    /** {@code kcache} ({@link #keys}) and {@code vcache} ({@link #values}). */
    @Override
    public SequencedMap<String, NpyArray> cache() {
        SequencedMap<String, NpyArray> out = new LinkedHashMap<>();
        out.put("kcache", keys());
        out.put("vcache", values());
        return out;
    }

    /** Cached keys of positions [0, length) as [layers, kv_heads, length, head_dim]. */
    public NpyArray keys() {
        return cache.keysNpy(length);
    }

    /** Cached values of positions [0, length) as [layers, kv_heads, length, head_dim]. */
    public NpyArray values() {
        return cache.valuesNpy(length);
    }
}
