package dev.needlewb.converter.cq.codebook;

/**
 * The CQ codebooks exactly as upstream's exporter stores them ({@code _cq_codebook_np}):
 * float64 centres divided by {@code sqrt(group)} in float64, then rounded to float32.
 * Bits 2, 3 and 4 use the {@link LloydMax} centres; ternary (record bits
 * {@value #TERNARY_RECORD_BITS}) uses the analytic centres {-c, 0, c} with
 * c = {@value #TERNARY_CENTRE}. Codes index these arrays (ternary: trit index 0, 1, 2).
 */
public final class Codebooks {
    /** The bits value a {@code .cact} tensor record uses for ternary CQ. */
    public static final int TERNARY_RECORD_BITS = 5;
    public static final double TERNARY_CENTRE = 1.2240064;
    /** The CQ bit widths whose codebooks the {@code .cact} header stores, in header order. */
    private static final int[] HEADER_BITS = {2, 3, 4};

    private Codebooks() {}

    /** The float64 centres before division: Lloyd-Max for 2, 3, 4; {-c, 0, c} for ternary. */
    public static double[] unitCentres(int recordBits) {
        return switch (recordBits) {
            case 2, 3, 4 -> LloydMax.centres(recordBits);
            case TERNARY_RECORD_BITS -> new double[] {-TERNARY_CENTRE, 0.0, TERNARY_CENTRE};
            default -> throw new IllegalArgumentException(
                    "CQ record bits must be 2, 3, 4 or " + TERNARY_RECORD_BITS + " (ternary), got " + recordBits);
        };
    }

    /** The float32 codebook for a record bits value (2, 3, 4 or 5 = ternary) and group size. */
    public static float[] of(int recordBits, int group) {
        if (group <= 0) throw new IllegalArgumentException("CQ group must be positive, got " + group);
        double[] centres = unitCentres(recordBits);
        double root = Math.sqrt(group);
        float[] cb = new float[centres.length];
        for (int k = 0; k < cb.length; k++) cb[k] = (float) (centres[k] / root);
        return cb;
    }

    /** The 28 header floats: the 2-, 3- and 4-bit codebooks of this group size, concatenated. */
    public static float[] headerCodebook(int group) {
        float[] out = new float[(1 << 2) + (1 << 3) + (1 << 4)];
        int at = 0;
        for (int bits : HEADER_BITS) {
            float[] cb = of(bits, group);
            System.arraycopy(cb, 0, out, at, cb.length);
            at += cb.length;
        }
        return out;
    }
}
