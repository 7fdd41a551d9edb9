package dev.needlewb.reference;

import dev.needlewb.core.io.NpyArray;

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
public final class Decoder extends CachedDecoder {
    private final ReferenceModel model;
    private final KvCache cache;
    private final Mask mask;
    private final RunSettings settings;

    Decoder(ReferenceModel model, int capacity, ForwardOptions options) {
        super(capacity);
        if (options.segmentIds() != null || options.maskPadding()) {
            throw new IllegalArgumentException("the cached decode path has no packing or padding mask");
        }
        if (!options.taps().isOff()) {
            throw new IllegalArgumentException("taps are recorded by the full-sequence forward only");
        }
        var g = model.geometry();
        this.model = model;
        this.cache = new KvCache(g.numLayers(), g.numKvHeads(), g.headDim(), capacity);
        this.mask = Mask.decode(options.window(), options.sinks());
        this.settings = RunSettings.of(options);
    }

    @Override
    protected void checkTokens(int[] tokens) {
        model.checkTokens(tokens);
    }

    @Override
    protected double[][] run(int[] seen, int pos, int count) {
        double[] h = model.trunk().run(seen, pos, count, cache, mask, Mask.CAUSAL, settings, null);
        var g = model.geometry();
        return model.logits(Norms.zcnRows(h, count, g.dModel(), model.finalNorm()), count, pos, settings, "");
    }

    /** Cached keys of positions [0, length) as [layers, kv_heads, length, head_dim]. */
    public NpyArray keys() {
        return cache.keysNpy(length());
    }

    /** Cached values of positions [0, length) as [layers, kv_heads, length, head_dim]. */
    public NpyArray values() {
        return cache.valuesNpy(length());
    }
}
