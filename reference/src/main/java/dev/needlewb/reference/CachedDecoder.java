package dev.needlewb.reference;

import java.util.Arrays;

/**
 * What every generation's cached decoder shares: the token history of at most {@code capacity}
 * positions and calls that append one or more tokens at the current position (a prefill is one
 * call on the whole prompt), each computing only the new rows from what the generation's cache
 * holds. Not stateless: one decoder per sequence.
 */
public abstract class CachedDecoder {
    private final int[] history;
    private int length;

    protected CachedDecoder(int capacity) {
        if (capacity <= 0) throw new IllegalArgumentException("capacity " + capacity + " is not positive");
        this.history = new int[capacity];
    }

    /** Runs the prompt from position 0; the logits of every prompt position. */
    public double[][] prefill(int[] tokens) {
        if (length != 0) throw new IllegalStateException("prefill on a decoder already at position " + length);
        return append(tokens);
    }

    /** Appends one token; the logits after it. */
    public double[] step(int token) {
        return append(new int[] {token})[0];
    }

    /** Appends {@code tokens} at the current position in one call; their logits, one row each. */
    public double[][] append(int[] tokens) {
        checkTokens(tokens);
        if (length + tokens.length > history.length) {
            throw new IllegalStateException("decoder capacity " + history.length + " exceeded: at " + length
                    + ", appending " + tokens.length);
        }
        int pos = length;
        System.arraycopy(tokens, 0, history, pos, tokens.length);
        double[][] logits = run(Arrays.copyOf(history, pos + tokens.length), pos, tokens.length);
        length += tokens.length;
        return logits;
    }

    /** The number of positions decoded so far. */
    public int length() {
        return length;
    }

    public int capacity() {
        return history.length;
    }

    /** Refuses tokens outside the model's vocabulary. */
    protected abstract void checkTokens(int[] tokens);

    /** The logits of positions [pos, pos + count) of {@code seen} (the history so far), filling the cache. */
    protected abstract double[][] run(int[] seen, int pos, int count);
}
