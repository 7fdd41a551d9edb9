package dev.needlewb.oracle;

/**
 * Exact round-to-nearest-even of a non-negative square root to IEEE float16, decided by comparing
 * squares of dyadic rationals (no rounding). Positive float16 bit patterns 0x0000..0x7C00 are
 * ordered like their values; for rounding, +infinity (0x7C00) stands at 2^16, which puts the
 * overflow threshold at the midpoint 65520 between 65504 and 2^16, ties to the even pattern
 * (0x7C00), as IEEE 754 specifies. Subnormals need no special case: 2^-25 rounds to 0 by the
 * same rule.
 */
final class Float16Rounding {
    static final int INFINITY_BITS = 0x7C00;
    private static final Dyadic INFINITY_SURROGATE = Dyadic.of(65536f);

    private Float16Rounding() {}

    /** The value of a non-negative float16 pattern in 0..0x7C00 (0x7C00 as 2^16). */
    static Dyadic value(int bits) {
        return bits == INFINITY_BITS ? INFINITY_SURROGATE : Dyadic.of(Float.float16ToFloat((short) bits));
    }

    /** The rounding midpoint between patterns {@code low} and {@code low + 1}. */
    static Dyadic midpoint(int low) {
        return value(low).add(value(low + 1)).scaleByPowerOfTwo(-1);
    }

    /**
     * The float16 pattern nearest to {@code sqrt(square)}, ties to even.
     *
     * @param approx a close approximation of the root; only used as the starting guess
     */
    static int roundRoot(Dyadic square, double approx) {
        int h = Math.clamp(Float.floatToFloat16((float) approx) & 0xFFFF, 0, INFINITY_BITS);
        while (true) {
            if (h < INFINITY_BITS) {
                int c = square.compareTo(midpoint(h).square());
                if (c > 0 || (c == 0 && ((h + 1) & 1) == 0)) {
                    h++;
                    continue;
                }
            }
            if (h > 0) {
                int c = square.compareTo(midpoint(h - 1).square());
                if (c < 0 || (c == 0 && ((h - 1) & 1) == 0)) {
                    h--;
                    continue;
                }
            }
            return h;
        }
    }
}
