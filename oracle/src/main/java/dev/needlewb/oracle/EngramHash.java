package dev.needlewb.oracle;

/**
 * The engram n-gram hash (SPEC section 2, upstream {@code architecture.engram_indices}), in
 * explicit uint32 arithmetic ({@code long & 0xFFFFFFFFL}). Table {@code t = orderIndex *
 * headsPerOrder + head} starts from {@code acc = 0x9E3779B9 * (t + 1)}; for j = 0 .. order-1
 * (the current token first) {@code acc = (acc XOR tok[pos - j]) * 0x01000193}; then
 * {@code acc ^= acc >>> 15} and the slot is {@code acc mod slots} (unsigned). Tokens before the
 * sequence start count as 0 (the model masks those n-grams out; the hash still exists).
 */
public final class EngramHash {
    private static final long MASK = 0xFFFFFFFFL;
    private static final long SEED = 0x9E3779B9L;
    private static final long PRIME = 0x01000193L;

    private EngramHash() {}

    /** The slot of the n-gram ending at {@code pos} in table (orderIndex, head). */
    public static int slot(int[] tokens, int pos, int orderIndex, int order, int head, int headsPerOrder, int slots) {
        if (pos < 0 || pos >= tokens.length) throw new IndexOutOfBoundsException("position " + pos);
        if (order < 1 || orderIndex < 0 || head < 0 || head >= headsPerOrder || slots < 1) {
            throw new IllegalArgumentException("bad engram geometry: orderIndex " + orderIndex + " order " + order
                    + " head " + head + "/" + headsPerOrder + " slots " + slots);
        }
        long table = (long) orderIndex * headsPerOrder + head;
        long acc = (SEED * (table + 1)) & MASK;
        for (int j = 0; j < order; j++) {
            int p = pos - j;
            long token = p >= 0 ? uint32(tokens[p], p) : 0;
            acc = ((acc ^ token) * PRIME) & MASK;
        }
        acc ^= acc >>> 15;
        return (int) (acc % slots);
    }

    /** Slots for every position and table: [T][orders.length * headsPerOrder]. */
    public static int[][] indices(int[] tokens, int[] orders, int headsPerOrder, int slots) {
        int tables = orders.length * headsPerOrder;
        int[][] idx = new int[tokens.length][tables];
        for (int pos = 0; pos < tokens.length; pos++) {
            for (int oi = 0; oi < orders.length; oi++) {
                for (int h = 0; h < headsPerOrder; h++) {
                    idx[pos][oi * headsPerOrder + h] = slot(tokens, pos, oi, orders[oi], h, headsPerOrder, slots);
                }
            }
        }
        return idx;
    }

    private static long uint32(int token, int pos) {
        if (token < 0) throw new IllegalArgumentException("negative token id " + token + " at position " + pos);
        return token;
    }
}
