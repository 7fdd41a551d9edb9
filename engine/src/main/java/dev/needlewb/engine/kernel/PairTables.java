package dev.needlewb.engine.kernel;

import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * An int8 activation's lookup tables for one int8 2-bit codebook: for every pair of inputs
 * {@code (x[2p], x[2p + 1])} the 16 values {@code T[n] = v[n & 3] x[2p] + v[n >> 2] x[2p + 1]}, the
 * dot products of that pair with every pair of codes (a nibble of packed codes, first code in bits
 * 0-1). {@code |T| <= 2 * 127 * 127 < 2^15}, so each is an int16, stored as two byte tables of 16
 * (what one byte shuffle looks up): {@link #low} holds {@code T & 0xFF}, {@link #high} holds
 * {@code (T >> 8) + 128}, both unsigned, so {@code T = low + 256 (high - 128)} exactly.
 *
 * <p>The tables are built on the block kernel's 128-bit short vectors at every width: eight even
 * entries and eight odd ones per pair, whose bytes interleave into the 16-byte tables without a shuffle.
 */
final class PairTables {
    private static final VectorSpecies<Short> S = CrumbBlocks.S;
    /** The bias that makes {@link #high} unsigned. */
    static final int HIGH_BIAS = 128;

    private final byte[] codebook;
    /** {@code v[n & 3]} and {@code v[n >> 2]} for the even entries {@code n = 0, 2, .., 14} and the odd ones. */
    private final ShortVector firstEven, firstOdd, secondEven, secondOdd;
    final byte[] low, high;
    /** The activation's generation the tables were last built for (-1: never). */
    private long builtFor = -1;

    PairTables(byte[] codebook, int pairs) {
        if (codebook.length != 4) throw new IllegalArgumentException("pair tables need a 4-entry codebook, got " + codebook.length);
        this.codebook = codebook.clone();
        firstEven = entries(codebook, 0, true);
        firstOdd = entries(codebook, 1, true);
        secondEven = entries(codebook, 0, false);
        secondOdd = entries(codebook, 1, false);
        low = new byte[pairs * 16];
        high = new byte[pairs * 16];
    }

    private static ShortVector entries(byte[] codebook, int parity, boolean first) {
        short[] v = new short[8];
        for (int k = 0; k < 8; k++) {
            int n = 2 * k + parity;
            v[k] = codebook[first ? n & 3 : n >> 2];
        }
        return ShortVector.fromArray(S, v, 0);
    }

    boolean isFor(byte[] codebook) {
        return java.util.Arrays.equals(this.codebook, codebook);
    }

    boolean isBuiltFor(long generation) {
        return builtFor == generation;
    }

    /** Fills the tables from the int8 inputs {@code q8} (natural order, two per pair). */
    void build(byte[] q8, long generation) {
        int pairs = low.length / 16;
        for (int p = 0; p < pairs; p++) {
            short a = q8[2 * p], b = q8[2 * p + 1];
            ShortVector even = firstEven.mul(a).add(secondEven.mul(b));
            ShortVector odd = firstOdd.mul(a).add(secondOdd.mul(b));
            // Short lane k holds entries 2k (low byte) and 2k + 1 (high byte): bytes in entry order.
            even.and((short) 0xFF).or(odd.lanewise(VectorOperators.LSHL, 8)).reinterpretAsBytes().intoArray(low, 16 * p);
            // (T >> 8) + 128 is the high byte of T with its sign bit flipped.
            ShortVector evenBiased = even.lanewise(VectorOperators.XOR, (short) 0x8000);
            ShortVector oddBiased = odd.lanewise(VectorOperators.XOR, (short) 0x8000);
            evenBiased.lanewise(VectorOperators.LSHR, 8).or(oddBiased.and((short) 0xFF00)).reinterpretAsBytes().intoArray(high, 16 * p);
        }
        builtFor = generation;
    }
}
