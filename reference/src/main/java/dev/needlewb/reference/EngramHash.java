package dev.needlewb.reference;

/**
 * The engram n-gram hash of upstream {@code engram_indices}, in uint32 arithmetic (Java int
 * multiplication and XOR wrap modulo 2^32 exactly like numpy's uint32).
 */
public final class EngramHash {
    static final int SEED = 0x9E3779B9;
    static final int PRIME = 0x01000193;

    private EngramHash() {}

    /**
     * The slot of table {@code table} (= order index x heads + head) for the n-gram of length
     * {@code order} ending at {@code position}; tokens before the sequence start count as 0.
     */
    public static int slot(int[] tokens, int position, int order, int table, int slots) {
        int acc = SEED * (table + 1);
        for (int j = 0; j < order; j++) {
            int p = position - j;
            acc = (acc ^ (p >= 0 ? tokens[p] : 0)) * PRIME;
        }
        acc ^= acc >>> 15;
        return Integer.remainderUnsigned(acc, slots);
    }
}
