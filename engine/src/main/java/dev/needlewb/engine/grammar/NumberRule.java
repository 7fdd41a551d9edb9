package dev.needlewb.engine.grammar;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

/**
 * What a number value may be: an integer ({@code -?(0|[1-9][0-9]*)}) or a number (the same plus an
 * optional {@code .digits}; the grammar writes no exponents), within optional inclusive
 * {@code minimum}/{@code maximum}. For a prefix of the number's text it answers how many more bytes
 * the shortest in-range completion needs (0: the number may end here), or {@link Need#DEAD}.
 */
final class NumberRule {
    private static final int DEAD = Need.DEAD;
    /** Digits searched past the prefix; a bound needs at most its own digit count. */
    private static final int MAX_EXTRA = 48;

    final boolean integer;
    final BigDecimal minimum;
    final BigDecimal maximum;

    NumberRule(boolean integer, BigDecimal minimum, BigDecimal maximum) {
        this.integer = integer;
        this.minimum = minimum;
        this.maximum = maximum;
    }

    boolean bounded() {
        return minimum != null || maximum != null;
    }

    /** Whether {@code text} is a whole number of this rule's syntax. */
    static boolean complete(String text) {
        return !text.isEmpty() && Character.isDigit(text.charAt(text.length() - 1));
    }

    /** Bytes still needed after {@code text} (a valid prefix of the syntax), or DEAD. */
    int need(String text) {
        boolean negative = text.startsWith("-");
        String body = negative ? text.substring(1) : text;
        // a negative number's digits are a positive number's against the mirrored bounds
        BigDecimal lo = negative ? negate(maximum) : minimum;
        BigDecimal hi = negative ? negate(minimum) : maximum;
        if (body.isEmpty()) {
            int best = DEAD;
            for (char d = '0'; d <= '9'; d++) best = Math.min(best, plus1(needPositive(String.valueOf(d), lo, hi)));
            if (text.isEmpty()) best = Math.min(best, plus1(need("-")));
            return best;
        }
        return needPositive(body, lo, hi);
    }

    private static int plus1(int v) {
        return Need.add(v, 1);
    }

    private static BigDecimal negate(BigDecimal v) {
        return v == null ? null : v.negate();
    }

    private int needPositive(String body, BigDecimal lo, BigDecimal hi) {
        int dot = body.indexOf('.');
        if (dot >= 0) {
            BigDecimal whole = new BigDecimal(body.substring(0, dot));
            String fraction = body.substring(dot + 1);
            BigDecimal value = fraction.isEmpty() ? whole : new BigDecimal(body);
            int start = fraction.isEmpty() ? 1 : 0;
            for (int k = start; k <= MAX_EXTRA; k++) {
                BigDecimal step = BigDecimal.ONE.movePointLeft(fraction.length() + k);
                if (gridHits(value, step, BigInteger.TEN.pow(k), lo, hi)) return k;
            }
            return DEAD;
        }
        BigDecimal digits = new BigDecimal(body);
        if (body.equals("0")) {
            if (inRange(BigDecimal.ZERO, lo, hi)) return 0;
            if (integer) return DEAD;
            for (int f = 1; f <= MAX_EXTRA; f++) {
                if (gridHits(BigDecimal.ZERO, BigDecimal.ONE.movePointLeft(f), BigInteger.TEN.pow(f), lo, hi)) return 1 + f;
            }
            return DEAD;
        }
        int best = DEAD;
        for (int k = 0; k <= MAX_EXTRA && k < best; k++) {
            BigDecimal start = digits.movePointRight(k);
            if (hi != null && start.compareTo(hi) > 0) break;
            BigInteger count = BigInteger.TEN.pow(k);
            if (gridHits(start, BigDecimal.ONE, count, lo, hi)) best = Math.min(best, k);
            // with a fraction the value stays below start + count: if the minimum is not, no fraction helps
            if (integer || (lo != null && lo.compareTo(start.add(new BigDecimal(count))) >= 0)) continue;
            for (int f = 1; f <= MAX_EXTRA && k + 1 + f < best; f++) {
                BigDecimal step = BigDecimal.ONE.movePointLeft(f);
                if (gridHits(start, step, count.multiply(BigInteger.TEN.pow(f)), lo, hi)) {
                    best = k + 1 + f;
                    break;
                }
            }
        }
        return best;
    }

    private static boolean inRange(BigDecimal v, BigDecimal lo, BigDecimal hi) {
        return (lo == null || v.compareTo(lo) >= 0) && (hi == null || v.compareTo(hi) <= 0);
    }

    /** Whether some {@code start + j * step}, {@code 0 <= j < count}, lies in {@code [lo, hi]}. */
    private static boolean gridHits(BigDecimal start, BigDecimal step, BigInteger count, BigDecimal lo, BigDecimal hi) {
        BigDecimal last = start.add(step.multiply(new BigDecimal(count.subtract(BigInteger.ONE))));
        BigDecimal first = start;
        if (lo != null && lo.compareTo(start) > 0) {
            BigDecimal steps = lo.subtract(start).divide(step, 0, RoundingMode.CEILING);
            first = start.add(steps.multiply(step));
        }
        return first.compareTo(last) <= 0 && (hi == null || first.compareTo(hi) <= 0);
    }

    /** Whether the whole number {@code text} is in range. */
    boolean inRange(String text) {
        return inRange(new BigDecimal(text), minimum, maximum);
    }
}
