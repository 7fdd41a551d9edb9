package dev.needlewb.converter.cq;

import java.util.Arrays;

/**
 * Codebooks of a {@code .cact}: the header stores {@code cb2[4] | cb3[8] | cb4[16]} (already
 * divided by sqrt(group)); the ternary codebook is analytic and not stored.
 */
public final class CqCodebooks {
    /** Number of floats in the header codebook. */
    public static final int HEADER_LENGTH = 28;

    private CqCodebooks() {}

    /** The entries for {@code recordBits} 2, 3 or 4 sliced out of the 28 header floats. */
    public static float[] fromHeader(float[] header, int recordBits) {
        if (header.length != HEADER_LENGTH) throw new IllegalArgumentException("header codebook has " + header.length + " floats");
        return switch (recordBits) {
            case 2 -> Arrays.copyOfRange(header, 0, 4);
            case 3 -> Arrays.copyOfRange(header, 4, 12);
            case 4 -> Arrays.copyOfRange(header, 12, 28);
            default -> throw new IllegalArgumentException("no header codebook for bits " + recordBits);
        };
    }

    /** The analytic ternary codebook, which the header does not store. */
    public static float[] ternary(int group) {
        return dev.needlewb.converter.cq.codebook.Codebooks.of(CqPacking.TERNARY_RECORD_BITS, group);
    }
}
