package dev.needlewb.reference.v3;

import dev.needlewb.converter.cq.codebook.Codebooks;
import dev.needlewb.converter.cq.codebook.LloydMax;
import dev.needlewb.reference.ActQuant;
import dev.needlewb.reference.CqKvQuant;
import dev.needlewb.reference.KvQuantizer;

/**
 * The Needle 3 fake quantizers beyond the A8 activations ({@code quantize.py}): per-head A8 on K
 * and V at kv_bits 8 or more (in Needle 2 that setting meant no KV rounding), CQ on K and V in
 * groups of 64 at kv_bits 1 to 7, and CQ-4 (group 128) on the probe-head matrices.
 */
final class V3Quant {
    /** Upstream {@code _KV_GROUP}, the {@code configure_deploy} default. */
    static final int KV_GROUP = 64;
    /** Upstream {@code HEAD_BITS} and {@code CQ_GROUP_SIZE}. */
    static final int HEAD_BITS = 4;
    static final int HEAD_GROUP = 128;

    /** Upstream {@code a8_fake_quant_kv}: one 8-bit scale per head vector. */
    static final KvQuantizer A8_PER_HEAD = ActQuant::row;

    private V3Quant() {}

    /** The rounding of each K and V head vector under {@code o}, or null for none. */
    static KvQuantizer kv(V3Options o) {
        if (!o.quant() || o.kvBits() == 0) return null;
        if (o.kvBits() >= 8) return A8_PER_HEAD;
        return new CqKvQuant(kvCodebook(o.kvBits()), KV_GROUP);
    }

    /**
     * Upstream {@code _cq_codebook_np(bits, 64)}: Lloyd-Max centres (analytic +-sqrt(2/pi) at one
     * bit, as Needle 3 defines it) divided by sqrt(64) in float64, rounded to float32.
     */
    static float[] kvCodebook(int bits) {
        double[] centres = bits == 1 ? new double[] {-Math.sqrt(2 / Math.PI), Math.sqrt(2 / Math.PI)} : LloydMax.centres(bits);
        float[] cb = new float[centres.length];
        for (int k = 0; k < cb.length; k++) cb[k] = (float) (centres[k] / Math.sqrt(KV_GROUP));
        return cb;
    }

    /** Upstream {@code head_weight}'s fake quant: CQ-4 in groups of 128 along a vector. */
    static KvQuantizer headWeights() {
        return new CqKvQuant(Codebooks.of(HEAD_BITS, HEAD_GROUP), HEAD_GROUP);
    }
}
