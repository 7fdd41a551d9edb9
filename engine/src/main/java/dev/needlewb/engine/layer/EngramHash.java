package dev.needlewb.engine.layer;

/**
 * The engram n-gram hash (uint32 wrap-around): for table {@code t}, {@code acc = 0x9E3779B9 * (t+1)};
 * for {@code j < order}: {@code acc = (acc ^ tok[pos - j]) * 0x01000193}; {@code acc ^= acc >>> 15};
 * slot {@code = acc mod slots} (unsigned).
 */
public final class EngramHash {
    private static final int SEED = 0x9E3779B9;
    private static final int PRIME = 0x01000193;

    private EngramHash() {}

    public static int slot(TokenHistory tokens, int pos, int order, int table, int slots) {
        int acc = SEED * (table + 1);
        for (int j = 0; j < order; j++) acc = (acc ^ tokens.at(pos - j)) * PRIME;
        acc ^= acc >>> 15;
        return Integer.remainderUnsigned(acc, slots);
    }
}
