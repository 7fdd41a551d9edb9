package dev.needlewb.oracle;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * An exact dyadic rational {@code mantissa * 2^exponent}. Every finite float and double is one, and
 * sums, differences, products and halvings of them stay one, so the oracle never rounds.
 */
record Dyadic(BigInteger mantissa, int exponent) implements Comparable<Dyadic> {
    static final Dyadic ZERO = new Dyadic(BigInteger.ZERO, 0);

    /** The exact value of a finite float. */
    static Dyadic of(float f) {
        if (!Float.isFinite(f)) throw new IllegalArgumentException("not a finite float: " + f);
        int bits = Float.floatToRawIntBits(f);
        int biased = (bits >>> 23) & 0xFF;
        long m = bits & 0x7FFFFF;
        int e;
        if (biased == 0) {
            e = -149;
        } else {
            m |= 0x800000;
            e = biased - 150;
        }
        return new Dyadic(BigInteger.valueOf(bits < 0 ? -m : m), e);
    }

    static Dyadic of(BigInteger mantissa, int exponent) {
        return new Dyadic(mantissa, exponent);
    }

    int signum() {
        return mantissa.signum();
    }

    Dyadic abs() {
        return mantissa.signum() < 0 ? new Dyadic(mantissa.negate(), exponent) : this;
    }

    Dyadic add(Dyadic o) {
        int e = Math.min(exponent, o.exponent);
        return new Dyadic(aligned(e).add(o.aligned(e)), e);
    }

    Dyadic subtract(Dyadic o) {
        return add(new Dyadic(o.mantissa.negate(), o.exponent));
    }

    Dyadic multiply(Dyadic o) {
        return new Dyadic(mantissa.multiply(o.mantissa), Math.addExact(exponent, o.exponent));
    }

    Dyadic square() {
        return multiply(this);
    }

    /** This times {@code 2^k}. */
    Dyadic scaleByPowerOfTwo(int k) {
        return new Dyadic(mantissa, Math.addExact(exponent, k));
    }

    /** The mantissa rescaled to exponent {@code e <= exponent}. */
    private BigInteger aligned(int e) {
        return mantissa.shiftLeft(exponent - e);
    }

    @Override
    public int compareTo(Dyadic o) {
        if (signum() != o.signum()) return Integer.compare(signum(), o.signum());
        int e = Math.min(exponent, o.exponent);
        return aligned(e).compareTo(o.aligned(e));
    }

    static Dyadic max(Dyadic a, Dyadic b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /** The exact decimal value (a dyadic rational always has a terminating decimal expansion). */
    BigDecimal toBigDecimal() {
        if (exponent >= 0) return new BigDecimal(mantissa.shiftLeft(exponent));
        // 2^-k = 5^k / 10^k
        return new BigDecimal(mantissa.multiply(BigInteger.valueOf(5).pow(-exponent)), -exponent);
    }
}
