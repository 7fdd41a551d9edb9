package dev.needlewb.reference;

import dev.needlewb.converter.cq.codebook.Codebooks;

/**
 * How to run a forward. Start from {@link #DEFAULT} (quant=False, causal mask, no KV rounding,
 * no taps) and change fields with the {@code with...} methods.
 *
 * @param quant       upstream {@code quant=True}: A8 fake quant of the engram vector, the attention
 *                    input, the gated attention output and the final hidden state
 * @param kvBits      upstream {@code configure_deploy(kv_bits)}: below 8 (with {@code quant}) K and V
 *                    are CQ fake-quantized with {@code kvCodebook} in groups of {@code kvGroup}
 * @param kvCodebook  the CQ-{@code kvBits} centres for group {@code kvGroup} (float32, sorted,
 *                    already divided by sqrt(group)); required when the KV fake quant is on
 * @param kvGroup     the KV CQ group (upstream default 64; head_dim is zero-padded to it)
 * @param int8Kv      emulate the production int8 KV cache (not upstream; see {@link Int8KvQuant})
 * @param window      sliding attention window ({@code q - k < window}), 0 for none
 * @param sinks       key positions always visible under a window (null: none)
 * @param segmentIds  packing: keys are visible only inside the same positive segment (null: one sequence)
 * @param maskPadding hide keys whose token is PAD (0), as upstream {@code hidden_cells} does
 * @param taps        intermediates to record ({@link Taps#off()} for none)
 * @param watch       collects near-tie quantizer decisions (null: not collected)
 */
public record ForwardOptions(
        boolean quant,
        int kvBits,
        float[] kvCodebook,
        int kvGroup,
        boolean int8Kv,
        int window,
        boolean[] sinks,
        int[] segmentIds,
        boolean maskPadding,
        Taps taps,
        QuantWatch watch) {

    public static final int KV_BITS_OFF = 8;
    public static final int DEFAULT_KV_GROUP = 64;
    public static final ForwardOptions DEFAULT = new ForwardOptions(false, KV_BITS_OFF, null, DEFAULT_KV_GROUP,
            false, 0, null, null, false, Taps.off(), null);

    public ForwardOptions {
        if (taps == null) taps = Taps.off();
        if (window < 0) throw new IllegalArgumentException("window " + window + " is negative");
        if (kvBits > 0 && kvBits < KV_BITS_OFF) {
            if (kvCodebook == null || kvCodebook.length != 1 << kvBits) {
                throw new IllegalArgumentException("kv_bits " + kvBits + " needs a codebook of " + (1 << kvBits) + " entries");
            }
            if (Integer.bitCount(kvGroup) != 1) throw new IllegalArgumentException("kv group " + kvGroup + " is not a power of two");
            if (int8Kv) throw new IllegalArgumentException("choose either the CQ KV fake quant or the int8 KV cache");
        }
    }

    public ForwardOptions withQuant(boolean on) {
        return new ForwardOptions(on, kvBits, kvCodebook, kvGroup, int8Kv, window, sinks, segmentIds, maskPadding, taps, watch);
    }

    /**
     * Upstream {@code configure_deploy(kv_bits=bits)}: below 8 bits, K and V are CQ fake-quantized
     * (under {@code quant}) with the exporter's codebook for {@code bits} and the default group 64;
     * 8 or more is upstream's default (Needle 2: off; Needle 3: A8 per head); 0 leaves K and V alone.
     */
    public ForwardOptions withKvBits(int bits) {
        if (bits == 0 || bits >= KV_BITS_OFF) return withKvCq(bits == 0 ? 0 : KV_BITS_OFF, null, DEFAULT_KV_GROUP);
        return withKvCq(bits, Codebooks.of(bits, DEFAULT_KV_GROUP), DEFAULT_KV_GROUP);
    }

    /** KV CQ fake quant at {@code bits} with an explicit codebook (applies with {@code quant}, as upstream); bits >= 8 turns it off. */
    public ForwardOptions withKvCq(int bits, float[] codebook, int group) {
        return new ForwardOptions(quant, bits, codebook, group, int8Kv, window, sinks, segmentIds, maskPadding, taps, watch);
    }

    public ForwardOptions withInt8Kv(boolean on) {
        return new ForwardOptions(quant, kvBits, kvCodebook, kvGroup, on, window, sinks, segmentIds, maskPadding, taps, watch);
    }

    public ForwardOptions withWindow(int window, boolean[] sinks) {
        return new ForwardOptions(quant, kvBits, kvCodebook, kvGroup, int8Kv, window, sinks, segmentIds, maskPadding, taps, watch);
    }

    /** A window whose first {@code sinkCount} positions are sinks. */
    public ForwardOptions withWindow(int window, int sinkCount) {
        boolean[] s = new boolean[sinkCount];
        java.util.Arrays.fill(s, true);
        return withWindow(window, s);
    }

    public ForwardOptions withSegments(int[] segmentIds) {
        return new ForwardOptions(quant, kvBits, kvCodebook, kvGroup, int8Kv, window, sinks, segmentIds, maskPadding, taps, watch);
    }

    public ForwardOptions withPaddingMask(boolean on) {
        return new ForwardOptions(quant, kvBits, kvCodebook, kvGroup, int8Kv, window, sinks, segmentIds, on, taps, watch);
    }

    public ForwardOptions withTaps(Taps taps) {
        return new ForwardOptions(quant, kvBits, kvCodebook, kvGroup, int8Kv, window, sinks, segmentIds, maskPadding, taps, watch);
    }

    public ForwardOptions withWatch(QuantWatch watch) {
        return new ForwardOptions(quant, kvBits, kvCodebook, kvGroup, int8Kv, window, sinks, segmentIds, maskPadding, taps, watch);
    }

    /** The rounding applied to K and V rows, or null: upstream's CQ fake quant needs {@code quant}. */
    KvQuantizer kvQuantizer() {
        if (quant && kvBits > 0 && kvBits < KV_BITS_OFF) return new CqKvQuant(kvCodebook, kvGroup);
        return int8Kv ? new Int8KvQuant() : null;
    }
}
