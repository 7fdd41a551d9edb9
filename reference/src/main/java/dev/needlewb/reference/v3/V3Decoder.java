package dev.needlewb.reference.v3;

import dev.needlewb.reference.Norms;
import dev.needlewb.reference.RunSettings;
import java.util.Arrays;

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
 * no window, sinks, padding mask or taps (those belong to the full-sequence calls). Not stateless:
 * one decoder per sequence.
 */
public final class V3Decoder {
    private final V3Model model;
    private final V3Cache cache;
    private final int[] history;
    private final RunSettings settings;
    private int length;

    V3Decoder(V3Model model, int capacity, V3Options o) {
        if (capacity <= 0) throw new IllegalArgumentException("capacity " + capacity + " is not positive");
        if (o.window() != 0 || o.sinks() != null || o.maskPadding()) {
            throw new IllegalArgumentException("the cached decode path has no window, sinks or padding mask: those are hidden_cells options");
        }
        if (!o.taps().isOff()) throw new IllegalArgumentException("taps are recorded by the full-sequence forward only");
        this.model = model;
        this.cache = new V3Cache(model.config(), capacity);
        this.history = new int[capacity];
        this.settings = V3Model.settings(o);
    }

    /** Runs the prompt from position 0; the logits [T][logit rows] of every prompt position. */
    public double[][] prefill(int[] tokens) {
        if (length != 0) throw new IllegalStateException("prefill on a decoder already at position " + length);
        return append(tokens);
    }

    /** Appends one token; the logits [logit rows] after it. */
    public double[] step(int token) {
        return append(new int[] {token})[0];
    }

    /** Appends {@code tokens} at the current position in one call; their logits [S][logit rows]. */
    public double[][] append(int[] tokens) {
        model.checkTokens(tokens);
        if (length + tokens.length > cache.capacity()) {
            throw new IllegalStateException("decoder capacity " + cache.capacity() + " exceeded: at " + length
                    + ", appending " + tokens.length);
        }
        int pos = length;
        System.arraycopy(tokens, 0, history, pos, tokens.length);
        int[] seen = Arrays.copyOf(history, pos + tokens.length);
        double[] h = model.trunk().run(seen, pos, tokens.length, cache, V3Mask.causal(), settings, null);
        length += tokens.length;
        return model.logits(Norms.zcnRows(h, tokens.length, model.config().dModel(), model.finalNorm()), tokens.length,
                pos, settings);
    }

    /** The number of positions decoded so far. */
    public int length() {
        return length;
    }

    public int capacity() {
        return cache.capacity();
    }
}
