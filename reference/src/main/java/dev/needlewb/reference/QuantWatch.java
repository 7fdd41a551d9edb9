package dev.needlewb.reference;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Collects the rounding decisions of the fake quantizers that sit within {@link #RELATIVE_MARGIN}
 * (relative) of a decision boundary: an int8 code whose {@code x/scale} is that close to a .5,
 * a codebook choice that close to the midpoint of two entries, a float16 norm that close to a
 * rounding midpoint. Summation order alone (about 1e-16 relative) can flip such a decision, so a
 * mismatch against another implementation that a near tie explains is not an error.
 */
public final class QuantWatch {
    public static final double RELATIVE_MARGIN = 1e-9;

    /**
     * One fragile decision: {@code site} names the quantizer and layer (e.g. {@code layer03.attn_in},
     * {@code layer03.k.head1}, {@code engram0.e}, {@code final}), {@code position} the token
     * position, {@code index} the element within the quantized row, {@code value} the quantity
     * that sits near the boundary.
     */
    public record NearTie(String site, int position, int index, double value) {
        @Override
        public String toString() {
            return site + " position " + position + " element " + index + " value " + value;
        }
    }

    private final List<NearTie> ties = new ArrayList<>();

    public synchronized void report(String site, int position, int index, double value) {
        ties.add(new NearTie(site, position, index, value));
    }

    public synchronized List<NearTie> ties() {
        return Collections.unmodifiableList(new ArrayList<>(ties));
    }

    /** The ties at token positions in {@code [from, to)}. */
    public synchronized List<NearTie> tiesAt(int from, int to) {
        return ties.stream().filter(t -> t.position() >= from && t.position() < to).toList();
    }

    /** True if nudging {@code x} by the relative margin either way changes {@code round(x)}. */
    public static boolean nearRoundingBoundary(double x) {
        double m = Math.abs(x) * RELATIVE_MARGIN;
        return Math.rint(x - m) != Math.rint(x + m);
    }
}
