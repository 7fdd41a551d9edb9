package dev.needlewb.converter.cq;

import java.util.Arrays;

/**
 * Codebooks of a {@code .cact}: the header stores {@code cb2[4] | cb3[8] | cb4[16]} (already
 * divided by sqrt(group)); the ternary codebook is analytic and not stored.
 */
public final class CqCodebooks {
    /** Number of floats in the header codebook. */
    public static final int HEADER_LENGTH = 28;
    /** The 3-level Lloyd-Max centre for a unit Gaussian. */
    public static final double TERNARY_CENTRE = 1.2240064;

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

    /** float32({-c, 0, c} / sqrt(group)) with the division done in double, as upstream. */
    public static float[] ternary(int group) {
        float c = (float) (TERNARY_CENTRE / Math.sqrt(group));
        return new float[] {-c, 0f, c};
    }
}
