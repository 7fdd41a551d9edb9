package dev.needlewb.reference;

/**
 * A rounding applied to every K row (after k_norm and RoPE) and V row of one head before it enters
 * the attention (and the cache): upstream's CQ fake quant or the production int8 storage.
 */
public interface KvQuantizer {
    /** Quantizes {@code x[off, off + n)} in place; near ties go to {@code watch} (may be null). */
    void quantize(double[] x, int off, int n, String site, int position, QuantWatch watch);
}
