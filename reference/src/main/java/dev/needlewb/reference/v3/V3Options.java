package dev.needlewb.reference.v3;

import dev.needlewb.reference.QuantWatch;
import dev.needlewb.reference.Taps;
import java.util.Arrays;

/**
 * How to run a Needle 3 forward. Start from {@link #DEFAULT} (upstream {@code quant=False}, causal
 * mask, no taps) or {@link #DEPLOY} (upstream {@code quant=True} after {@code configure_deploy(8, 8)})
 * and change fields with the {@code with...} methods.
 *
 * @param quant       upstream {@code quant=True}: A8 on the engram rows, the mHC normalised stream,
 *                    the attention input, each query head, the gated attention output and the final
 *                    hidden state; CQ-4 fake quant of the probe-head matrices; K and V per {@code kvBits}
 * @param kvBits      upstream {@code KV_BITS} (with {@code quant}): 0 leaves K and V alone, 8 or more
 *                    rounds each K and V head vector to A8, 1 to 7 CQ-quantizes it in groups of 64
 * @param window      {@code hidden_cells(window=...)}: keys only within {@code q - k < window}, 0 for none
 * @param sinks       {@code hidden_cells(sink=...)}: key positions visible whatever the window (null: none)
 * @param maskPadding hide PAD keys from attention, conv taps and engram n-grams, as {@code hidden_cells}
 *                    does (always on for hidden cells and the probe heads)
 * @param taps        intermediates to record ({@link Taps#off()} for none)
 * @param watch       collects quantizer decisions that sit on a rounding boundary (null: not collected)
 */
public record V3Options(
        boolean quant,
        int kvBits,
        int window,
        boolean[] sinks,
        boolean maskPadding,
        Taps taps,
        QuantWatch watch) {

    /** {@code quant=False}: the float forward. */
    public static final V3Options DEFAULT = new V3Options(false, 8, 0, null, false, Taps.off(), null);
    /** {@code quant=True} with upstream's deploy settings: A8 activations, A8 Q, K and V (kv_bits 8). */
    public static final V3Options DEPLOY = DEFAULT.withQuant(true);

    public V3Options {
        if (taps == null) taps = Taps.off();
        if (kvBits < 0) throw new IllegalArgumentException("kv_bits " + kvBits + " is negative");
        if (window < 0) throw new IllegalArgumentException("window " + window + " is negative");
        sinks = sinks == null ? null : sinks.clone();
    }

    public V3Options withQuant(boolean on) {
        return new V3Options(on, kvBits, window, sinks, maskPadding, taps, watch);
    }

    /** Upstream {@code configure_deploy(kv_bits=bits)}: 0 off, 1-7 CQ in groups of 64, 8 or more A8. */
    public V3Options withKvBits(int bits) {
        return new V3Options(quant, bits, window, sinks, maskPadding, taps, watch);
    }

    public V3Options withWindow(int window, boolean[] sinks) {
        return new V3Options(quant, kvBits, window, sinks, maskPadding, taps, watch);
    }

    public V3Options withPaddingMask(boolean on) {
        return new V3Options(quant, kvBits, window, sinks, on, taps, watch);
    }

    public V3Options withTaps(Taps taps) {
        return new V3Options(quant, kvBits, window, sinks, maskPadding, taps, watch);
    }

    public V3Options withWatch(QuantWatch watch) {
        return new V3Options(quant, kvBits, window, sinks, maskPadding, taps, watch);
    }

    @Override
    public boolean[] sinks() {
        return sinks == null ? null : sinks.clone();
    }

    @Override
    public String toString() {
        return "V3Options[quant=" + quant + ", kvBits=" + kvBits + ", window=" + window + ", sinks="
                + Arrays.toString(sinks) + ", maskPadding=" + maskPadding + "]";
    }
}
