package dev.needlewb.reference;

/**
 * Upstream's A8 activation fake quant ({@code fake_quant_act}): per row one scale
 * {@code absmax/127} (1 when the row is all zero), {@code clip(round_half_even(x/scale), -128, 127) * scale},
 * returned as {@code x + (q - x)} exactly as the straight-through expression evaluates.
 */
public final class ActQuant {
    public static final int QMAX = 127;

    private ActQuant() {}

    /**
     * Fake-quantizes every row of {@code x [rows, width]} in place. Row r belongs to token position
     * {@code firstPosition + r}; near ties go to {@code watch} (may be null) under {@code site}.
     */
    public static void apply(double[] x, int rows, int width, String site, int firstPosition, QuantWatch watch) {
        for (int r = 0; r < rows; r++) row(x, r * width, width, site, firstPosition + r, watch);
    }

    /** Fake-quantizes one row {@code x[off, off + width)} of token position {@code position} in place. */
    public static void row(double[] x, int off, int width, String site, int position, QuantWatch watch) {
        double absmax = 0;
        for (int i = 0; i < width; i++) absmax = Math.max(absmax, Math.abs(x[off + i]));
        double scale = absmax > 0 ? absmax / QMAX : 1.0;
        for (int i = 0; i < width; i++) {
            double w = x[off + i];
            double ratio = w / scale;
            if (watch != null && QuantWatch.nearRoundingBoundary(ratio)) watch.report(site, position, i, ratio);
            double q = Math.clamp(Math.rint(ratio), -QMAX - 1, QMAX) * scale;
            x[off + i] = w + (q - w);
        }
    }
}
