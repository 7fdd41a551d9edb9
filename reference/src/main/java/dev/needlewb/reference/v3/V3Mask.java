package dev.needlewb.reference.v3;

import dev.needlewb.reference.Mask;

/**
 * Which keys a query sees in a Needle 3 forward, by absolute positions: causal; PAD keys hidden
 * under the padding mask; {@code hidden_cells}' window (keys within it or sinks); and, for a
 * local layer, its sliding window {@code q - k < sliding_window}. The model mask (no layer window)
 * also gates the engram n-grams and taps; a layer's mask gates its QKV conv taps. One final class,
 * so every call site sees one type.
 */
final class V3Mask implements Mask {
    private static final V3Mask CAUSAL = new V3Mask(null, 0, false, 0, null, 0);

    private final int[] tokens;
    private final int padId;
    private final boolean padding;
    private final int window;
    private final boolean[] sinks;
    private final int layerWindow;

    private V3Mask(int[] tokens, int padId, boolean padding, int window, boolean[] sinks, int layerWindow) {
        this.tokens = tokens;
        this.padId = padId;
        this.padding = padding;
        this.window = window;
        this.sinks = sinks;
        this.layerWindow = layerWindow;
    }

    /** Causal only (the cached decoder, {@code __call__}). */
    static V3Mask causal() {
        return CAUSAL;
    }

    /** Causal, AND key token != {@code padId} when {@code padding}, AND (within {@code window} OR a sink) when window > 0. */
    static V3Mask sequence(int[] tokens, int padId, boolean padding, int window, boolean[] sinks) {
        return new V3Mask(tokens, padId, padding, window, sinks, 0);
    }

    /** This mask cut to a layer's sliding window (0: a global layer, unchanged). */
    V3Mask layer(int slidingWindow) {
        return slidingWindow == 0 ? this : new V3Mask(tokens, padId, padding, window, sinks, slidingWindow);
    }

    /** The layer's sliding window, 0 for none. */
    int layerWindow() {
        return layerWindow;
    }

    /** The first key a query at {@code query} may see under the layer window. */
    int firstKey(int query) {
        return layerWindow == 0 ? 0 : Math.max(0, query - layerWindow + 1);
    }

    @Override
    public boolean visible(int query, int key) {
        return key <= query
                && (layerWindow == 0 || query - key < layerWindow)
                && (!padding || tokens[key] != padId)
                && (window == 0 || query - key < window || (sinks != null && key < sinks.length && sinks[key]));
    }
}
