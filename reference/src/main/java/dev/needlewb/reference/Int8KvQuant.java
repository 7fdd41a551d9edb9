package dev.needlewb.reference;

/**
 * Emulates the production int8 KV cache (SPEC section 5): blocks of 32 consecutive values along
 * head_dim, one float32 scale {@code (float) (absmax / 127)} per block, codes
 * {@code clip(round_half_even(x / scale), -128, 127)}, read back as {@code code * scale}.
 * Not an upstream feature: the public upstream reference never rounds its KV to int8.
 */
final class Int8KvQuant implements KvQuantizer {
    static final int BLOCK = 32;

    @Override
    public void quantize(double[] x, int off, int n, String site, int position, QuantWatch watch) {
        for (int b = 0; b < n; b += BLOCK) {
            int len = Math.min(BLOCK, n - b);
            double absmax = 0;
            for (int i = 0; i < len; i++) absmax = Math.max(absmax, Math.abs(x[off + b + i]));
            double scale = (float) (absmax / ActQuant.QMAX);
            if (scale == 0) { // an all-zero block, or one whose scale underflows float32: zeros
                java.util.Arrays.fill(x, off + b, off + b + len, 0.0);
                continue;
            }
            for (int i = 0; i < len; i++) {
                double ratio = x[off + b + i] / scale;
                if (watch != null && QuantWatch.nearRoundingBoundary(ratio)) watch.report(site, position, b + i, ratio);
                x[off + b + i] = Math.clamp(Math.rint(ratio), -ActQuant.QMAX - 1, ActQuant.QMAX) * scale;
            }
        }
    }
}
