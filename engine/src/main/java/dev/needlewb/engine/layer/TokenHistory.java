package dev.needlewb.engine.layer;

/** The last few tokens of a session (a ring), enough for the longest engram n-gram. */
public final class TokenHistory {
    private final int[] ring;
    private int latest = -1;

    public TokenHistory(int length) {
        this.ring = new int[length];
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
