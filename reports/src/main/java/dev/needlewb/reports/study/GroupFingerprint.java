package dev.needlewb.reports.study;

import dev.needlewb.core.simd.VectorWidth;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * A 64-bit hash of one group's state (its codes, eight per 64-bit word, and its float16 norm);
 * equal states hash equal. Each word gets its own odd multiplier and the products are summed, a
 * vector of words at a time, so no multiplication waits on another. The sum wraps modulo 2^64, which
 * is associative, so the hash is the same at every vector width. Collisions only cost a
 * recomputation: every repeat a hash suggests is confirmed exactly.
 */
final class GroupFingerprint {
    private static final VectorSpecies<Long> LONGS = VectorWidth.LONGS;
    private static final VectorSpecies<Byte> BYTES = VectorWidth.BYTES;
    /** Codes per vector: 16, 32 or 64. */
    private static final int CODES_PER_VECTOR = BYTES.length();
    private static final long GOLDEN = 0x9e3779b97f4a7c15L;
    /** {@code GOLDEN * (2w + 1)} for word w of the largest group (128 codes = 16 words). */
    private static final long[] MULTIPLIERS = new long[16];

    static {
        for (int w = 0; w < MULTIPLIERS.length; w++) MULTIPLIERS[w] = GOLDEN * (2 * w + 1);
    }

    private GroupFingerprint() {}

    /** The hash of {@code codes[base, base + group)} and {@code norm}; group 64 or 128 (a multiple of the widest vector's 64 codes). */
    static long of(byte[] codes, int base, int group, short norm) {
        LongVector sum = LongVector.zero(LONGS);
        for (int k = 0; k < group; k += CODES_PER_VECTOR) {
            LongVector words = ByteVector.fromArray(BYTES, codes, base + k).reinterpretAsLongs();
            sum = words.mul(LongVector.fromArray(LONGS, MULTIPLIERS, k / Long.BYTES)).add(sum);
        }
        long h = sum.reduceLanes(VectorOperators.ADD) + (norm & 0xFFFF) * GOLDEN;
        h = (h ^ (h >>> 29)) * GOLDEN;
        return h ^ (h >>> 32);
    }
}
