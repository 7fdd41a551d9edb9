package dev.needlewb.reference;

/**
 * Which keys a query may see, by absolute positions. The same predicate also gates the engram
 * n-grams ({@code visible(p, p - order + 1)}) and conv taps ({@code visible(p, p - dilation * j)})
 * in the full-sequence path, as upstream does.
 */
@FunctionalInterface
public interface Mask {
    boolean visible(int query, int key);

    /** Causal only: {@code key <= query}. */
    Mask CAUSAL = (q, k) -> k <= q;

    /**
     * The full-sequence mask of upstream: causal, AND key token != PAD when {@code padding},
     * AND same positive segment when {@code segments} is given (packing), AND (within
     * {@code window} OR key is a sink) when {@code window > 0}.
     */
    static Mask sequence(int[] tokens, boolean padding, int[] segments, int window, boolean[] sinks) {
        return (q, k) -> k <= q
                && (!padding || tokens[k] != ReferenceModel.PAD_ID)
                && (segments == null || (segments[q] == segments[k] && segments[q] > 0))
                && (window <= 0 || q - k < window || isSink(sinks, k));
    }

    /** The cached-decode mask of upstream {@code _attn_cached}: causal AND (within window OR sink). */
    static Mask decode(int window, boolean[] sinks) {
        return window <= 0 ? CAUSAL : (q, k) -> k <= q && (q - k < window || isSink(sinks, k));
    }

    private static boolean isSink(boolean[] sinks, int k) {
        return sinks != null && k < sinks.length && sinks[k];
    }
}
