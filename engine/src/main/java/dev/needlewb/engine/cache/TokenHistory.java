package dev.needlewb.engine.cache;

import java.util.function.IntUnaryOperator;

/** The last few tokens of a session (a ring), enough for the longest engram n-gram. */
public final class TokenHistory {
    private final int[] ring;
    private final IntUnaryOperator reader = this::at;
    private int latest = -1;

    public TokenHistory(int length) {
        this.ring = new int[length];
    }

    /** {@link #at} as a function, made once (a step asks for it without allocating). */
    public IntUnaryOperator reader() {
        return reader;
    }

    /** Forgets every token: the next one pushed is position 0. */
    public void reset() {
        latest = -1;
    }

    /** Records the token at {@code pos}; positions must arrive in order from 0. */
    public void push(int pos, int token) {
        if (pos != latest + 1) throw new IllegalStateException("token at position " + pos + " after position " + latest);
        ring[pos % ring.length] = token;
        latest = pos;
    }

    /** The token at {@code pos}, 0 before the sequence start (as upstream hashes it). */
    public int at(int pos) {
        if (pos < 0) return 0;
        if (pos > latest || pos <= latest - ring.length) throw new IllegalArgumentException("position " + pos + " not held (latest " + latest + ")");
        return ring[pos % ring.length];
    }
}
