package dev.needlewb.oracle;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * The CQ decision evaluated the obvious way at 100 digits, as a brute-force reference for
 * {@link ExactCq}: explicit matrix product, square root, division, distances to every entry.
 */
final class NaiveCq {
    static final MathContext MC = new MathContext(100, RoundingMode.HALF_EVEN);
    private static final BigDecimal TAU = new BigDecimal(1e-12f);

    record Result(int[] codes, BigDecimal[] unit, BigDecimal[] margin, BigDecimal norm, int half, BigDecimal norm16Margin) {}

    private NaiveCq() {}

    static Result evaluate(float[] w, float[] cb) {
        int n = w.length;
        int[][] h = ExactHadamardTest.blockRecursion(n);
        BigDecimal[] s = new BigDecimal[n];
        BigDecimal n2 = BigDecimal.ZERO;
        for (int j = 0; j < n; j++) {
            s[j] = BigDecimal.ZERO;
            for (int i = 0; i < n; i++) s[j] = h[i][j] > 0 ? s[j].add(new BigDecimal(w[i])) : s[j].subtract(new BigDecimal(w[i]));
            n2 = n2.add(s[j].multiply(s[j]));
        }
        BigDecimal norm = n2.divide(BigDecimal.valueOf(n)).sqrt(MC); // n is a power of two: exact division
        // u = r / max(norm, tau) with r = s / sqrt(n)
        BigDecimal denominator = norm.compareTo(TAU) >= 0 ? n2.sqrt(MC)
                : BigDecimal.valueOf(n).sqrt(MC).multiply(TAU, MC);
        int[] codes = new int[n];
        BigDecimal[] unit = new BigDecimal[n];
        BigDecimal[] margin = new BigDecimal[n];
        for (int j = 0; j < n; j++) {
            BigDecimal u = s[j].divide(denominator, MC);
            unit[j] = u;
            int best = 0;
            BigDecimal bestDistance = null;
            for (int k = 0; k < cb.length; k++) {
                BigDecimal d = u.subtract(new BigDecimal(cb[k])).abs();
                if (bestDistance == null || d.compareTo(bestDistance) < 0) {
                    best = k;
                    bestDistance = d;
                }
            }
            codes[j] = best;
            BigDecimal nearestMidpoint = null;
            for (int k = 0; k + 1 < cb.length; k++) {
                BigDecimal mid = new BigDecimal(cb[k]).add(new BigDecimal(cb[k + 1])).divide(BigDecimal.TWO);
                BigDecimal d = u.subtract(mid).abs();
                if (nearestMidpoint == null || d.compareTo(nearestMidpoint) < 0) nearestMidpoint = d;
            }
            margin[j] = nearestMidpoint;
        }
        int half = nearestHalf(norm);
        return new Result(codes, unit, margin, norm, half, halfMargin(norm));
    }

    /** Float16 value of a pattern, with +infinity standing at 2^16 for rounding. */
    static BigDecimal halfValue(int bits) {
        return bits == 0x7C00 ? BigDecimal.valueOf(65536) : new BigDecimal(Float.float16ToFloat((short) bits));
    }

    /** Nearest float16 pattern by explicit distances to the candidates around a first guess, ties to even. */
    static int nearestHalf(BigDecimal x) {
        int guess = Math.clamp(Float.floatToFloat16(x.floatValue()) & 0xFFFF, 0, 0x7C00);
        int best = -1;
        BigDecimal bestDistance = null;
        for (int c = Math.max(0, guess - 3); c <= Math.min(0x7C00, guess + 3); c++) {
            BigDecimal d = x.subtract(halfValue(c)).abs();
            int cmp = bestDistance == null ? -1 : d.compareTo(bestDistance);
            if (cmp < 0 || (cmp == 0 && (c & 1) == 0)) {
                best = c;
                bestDistance = d;
            }
        }
        return best;
    }

    /** Relative distance of x to the nearest float16 rounding midpoint. */
    static BigDecimal halfMargin(BigDecimal x) {
        if (x.signum() == 0) return null;
        int h = nearestHalf(x);
        BigDecimal best = null;
        for (int low = Math.max(0, h - 1); low <= Math.min(0x7BFF, h); low++) {
            BigDecimal mid = halfValue(low).add(halfValue(low + 1)).divide(BigDecimal.TWO);
            BigDecimal d = x.subtract(mid).abs();
            if (best == null || d.compareTo(best) < 0) best = d;
        }
        return best.divide(x, MC);
    }
}
