package dev.needlewb.engine.kernel;

import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * An int8 activation's lookup tables for one int8 codebook, one table of 16 entries per nibble of a
 * row's packed codes, indexed by that nibble. At 2 bits a nibble holds two codes, and the table of
 * inputs {@code (x[2p], x[2p + 1])} holds {@code T[n] = v[n & 3] x[2p] + v[n >> 2] x[2p + 1]}, the dot
 * products of the pair with every pair of codes (first code in bits 0-1). At 4 bits a nibble is one
 * code, and the table of input {@code x[p]} holds {@code T[n] = v[n] x[p]}. Either way table {@code p}
 * serves nibble {@code p} of the LSB-first code stream: byte {@code j}'s low nibble reads table
 * {@code 2j}, its high nibble table {@code 2j + 1}.
 *
 * <p>{@code |T| <= 2 * 127 * 127 < 2^15}, so each entry is an int16, stored as two byte tables of 16
 * (what one byte shuffle looks up): {@link #low} holds {@code T & 0xFF}, {@link #high} holds
 * {@code (T >> 8) + 128}, both unsigned, so {@code T = low + 256 (high - 128)} exactly. The tables are
 * built on the block kernel's 128-bit short vectors at every width: eight even entries and eight odd
 * ones per table, whose bytes interleave into the 16-byte tables without a shuffle.
 */
final class NibbleTables {
    private static final VectorSpecies<Short> S = RowBlocks.S;
    /** The bias that makes {@link #high} unsigned. */
    static final int HIGH_BIAS = 128;

    private final byte[] codebook;
    /** Codes per nibble: 2 for a 4-entry (2-bit) codebook, 1 for a 16-entry one. */
    private final int codesPerNibble;
    /** The first code's value {@code v[n & mask]} of the even entries {@code n = 0, 2, .., 14} and of the odd ones. */
    private final ShortVector firstEven, firstOdd;
    /** At 2 bits, the second code's value {@code v[n >> 2]} of the even and odd entries; null at 4 bits. */
    private final ShortVector secondEven, secondOdd;
    final byte[] low, high;
    /** The activation's generation the tables were last built for (-1: never). */
    private long builtFor = -1;

    /** Tables for an input of {@code cols} values (a multiple of the codes per nibble). */
    NibbleTables(byte[] codebook, int cols) {
        codesPerNibble = switch (codebook.length) {
            case 4 -> 2;
            case 16 -> 1;
            default -> throw new IllegalArgumentException("nibble tables need a 4- or 16-entry codebook, got " + codebook.length);
        };
        this.codebook = codebook.clone();
        int firstMask = codebook.length == 4 ? 3 : 15;
        firstEven = entries(codebook, 0, n -> n & firstMask);
        firstOdd = entries(codebook, 1, n -> n & firstMask);
        secondEven = codesPerNibble == 2 ? entries(codebook, 0, n -> n >> 2) : null;
        secondOdd = codesPerNibble == 2 ? entries(codebook, 1, n -> n >> 2) : null;
        int tables = cols / codesPerNibble;
        low = new byte[tables * 16];
        high = new byte[tables * 16];
    }

    private static ShortVector entries(byte[] codebook, int parity, java.util.function.IntUnaryOperator code) {
        short[] v = new short[8];
        for (int k = 0; k < 8; k++) v[k] = codebook[code.applyAsInt(2 * k + parity)];
        return ShortVector.fromArray(S, v, 0);
    }

    boolean isFor(byte[] codebook) {
        return java.util.Arrays.equals(this.codebook, codebook);
    }

    boolean isBuiltFor(long generation) {
        return builtFor == generation;
    }

    /** Fills the tables from the int8 inputs {@code q8} (natural order, integers in [-127, 127] held as floats). */
    void build(float[] q8, long generation) {
        if (codesPerNibble == 2) buildPairs(q8);
        else buildSingles(q8);
        builtFor = generation;
    }

    private void buildPairs(float[] q8) {
        for (int p = 0, tables = low.length / 16; p < tables; p++) {
            short a = (short) q8[2 * p], b = (short) q8[2 * p + 1];
            store(firstEven.mul(a).add(secondEven.mul(b)), firstOdd.mul(a).add(secondOdd.mul(b)), p);
        }
    }

    private void buildSingles(float[] q8) {
        for (int p = 0, tables = low.length / 16; p < tables; p++) {
            short a = (short) q8[p];
            store(firstEven.mul(a), firstOdd.mul(a), p);
        }
    }

    /** Table {@code p} from its even and odd entries. */
    private void store(ShortVector even, ShortVector odd, int p) {
        // Short lane k holds entries 2k (low byte) and 2k + 1 (high byte): bytes in entry order.
        even.and((short) 0xFF).or(odd.lanewise(VectorOperators.LSHL, 8)).reinterpretAsBytes().intoArray(low, 16 * p);
        // (T >> 8) + 128 is the high byte of T with its sign bit flipped.
        ShortVector evenBiased = even.lanewise(VectorOperators.XOR, (short) 0x8000);
        ShortVector oddBiased = odd.lanewise(VectorOperators.XOR, (short) 0x8000);
        evenBiased.lanewise(VectorOperators.LSHR, 8).or(oddBiased.and((short) 0xFF00)).reinterpretAsBytes().intoArray(high, 16 * p);
    }
}
