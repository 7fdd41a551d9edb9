package dev.needlewb.reference;

/**
 * Rounding of a double to the nearest float16 (ties to even), as numpy's {@code astype(float16)}
 * does from float64 in one step. Going through float first can round twice; this corrects that.
 */
final class Float16Round {
    private Float16Round() {}

    static double round(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) return d;
        short first = Float.floatToFloat16((float) d);
        double best = Float.float16ToFloat(first);
        if (best == d || Double.isInfinite(best)) return best;
        int bestBits = first & 0xFFFF;
        for (int delta = -1; delta <= 1; delta += 2) {
            int bits = bestBits + delta;
            if ((bits & 0x7FFF) >= 0x7C00 || ((bits ^ bestBits) & 0x8000) != 0) continue; // stay finite, same sign
            double candidate = Float.float16ToFloat((short) bits);
            double diff = Math.abs(candidate - d) - Math.abs(best - d);
            if (diff < 0 || (diff == 0 && (bits & 1) == 0)) {
                best = candidate;
                bestBits = bits;
            }
        }
        return best;
    }
}
