package dev.needlewb.core.model;

import java.util.function.IntUnaryOperator;

/**
 * The engram n-gram hash of upstream {@code engram_indices} in uint32 arithmetic (Java int
 * multiplication and XOR wrap modulo 2^32 exactly like numpy's uint32): for table {@code t}
 * ({@code = order index x heads + head}), {@code acc = 0x9E3779B9 * (t+1)}; for {@code j < order}:
 * {@code acc = (acc ^ tok[pos - j]) * 0x01000193}; {@code acc ^= acc >>> 15}; slot
 * {@code = acc mod slots} (unsigned). The oracle module keeps its own exact version on purpose.
 */
public final class EngramHash {
    private static final int SEED = 0x9E3779B9;
    private static final int PRIME = 0x01000193;

    private EngramHash() {}

    /** The slot of the n-gram of length {@code order} ending at {@code pos}; {@code tokenAt} gives the token at a position. */
    public static int slot(IntUnaryOperator tokenAt, int pos, int order, int table, int slots) {
        int acc = SEED * (table + 1);
        for (int j = 0; j < order; j++) acc = (acc ^ tokenAt.applyAsInt(pos - j)) * PRIME;
        acc ^= acc >>> 15;
        return Integer.remainderUnsigned(acc, slots);
    }

    /** The same over a whole sequence; tokens before its start count as 0. */
    public static int slot(int[] tokens, int pos, int order, int table, int slots) {
        return slot(p -> p >= 0 ? tokens[p] : 0, pos, order, table, slots);
    }
}
