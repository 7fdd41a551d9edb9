package dev.needlewb.reference.v3;

import dev.needlewb.reference.CachedDecoder;
import dev.needlewb.reference.Norms;
import dev.needlewb.reference.RunSettings;

/**
 * A cached decode path for Needle 3, which upstream does not have (its {@code run.generate}
 * reruns the whole PAD-filled buffer every step, and trailing PADs are causally invisible, so the
 * logit at position p is that of the prefix ending at p). Each call appends one or more tokens at
 * the current position (a prefill is one call on the whole prompt) and computes only those rows:
 * K/V of earlier positions come from the cache, the QKV conv reads the raw projections of the
 * previous {@code qkv_conv_taps - 1} positions from the cache's ring, local layers attend to their
 * window of cached keys and global layers to all of them, and the engram of a call reads the token
 * history (its n-grams and conv reach back {@code (taps - 1) x dilation} positions). The mask is
 * causal, as in {@code __call__}.
 *
 * <p>Options: {@code quant} and {@code kvBits} as the full forward (the same per-position rounding);
 * no window, sinks, padding mask or taps (those belong to the full-sequence calls).
 */
public final class V3Decoder extends CachedDecoder {
    private final V3Model model;
    private final V3Cache cache;
    private final RunSettings settings;

    V3Decoder(V3Model model, int capacity, V3Options o) {
        super(capacity);
        if (o.window() != 0 || o.sinks() != null || o.maskPadding()) {
            throw new IllegalArgumentException("the cached decode path has no window, sinks or padding mask: those are hidden_cells options");
        }
        if (!o.taps().isOff()) throw new IllegalArgumentException("taps are recorded by the full-sequence forward only");
        this.model = model;
        this.cache = new V3Cache(model.config(), capacity);
        this.settings = V3Model.settings(o);
    }

    @Override
    protected void checkTokens(int[] tokens) {
        model.checkTokens(tokens);
    }

    @Override
    protected double[][] run(int[] seen, int pos, int count) {
        double[] h = model.trunk().run(seen, pos, count, cache, V3Mask.causal(), settings, null);
        return model.logits(Norms.zcnRows(h, count, model.config().dModel(), model.finalNorm()), count, pos, settings);
    }
}
