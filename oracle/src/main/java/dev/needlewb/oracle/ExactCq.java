package dev.needlewb.oracle;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * The exact CQ decision of SPEC section 4 (upstream {@code export._cq_pack}): for a group w of
 * length n, s = H w with the +1/-1 Hadamard matrix (exact), N2 = sum s_j^2 (exact), exact norm
 * x = sqrt(N2 / n), unit coordinate u_i = s_i / sqrt(max(N2, n tau^2)) where tau = float32(1e-12)
 * is upstream's guard {@code max(norm, 1e-12)} (the 1/sqrt(n) of the orthonormal H cancels; an
 * all-zero group gets u = 0 exactly; a nonzero group with x &lt; tau gets upstream's un-normalised
 * r / tau). The code is the index of the nearest codebook entry, ties to the smaller index, i.e.
 * the number of midpoints m_k = (c_k + c_(k+1)) / 2 strictly below u_i. Each comparison of u_i
 * with m_k is decided exactly: by signs, then by comparing s_i^2 with m_k^2 max(N2, n tau^2) as
 * integers. The stored norm is x rounded to float16, decided the same way.
 */
public final class ExactCq {
    /** Precision of the reported (rounded) quantities: norms, unit coordinates, distances. */
    static final MathContext MC = new MathContext(60, RoundingMode.HALF_EVEN);

    private ExactCq() {}

    /**
     * Decides one group.
     *
     * @param group    float32 weights of one group, already zero-padded; length a power of two
     *                 (64 or 128 in practice)
     * @param codebook the float32 codebook as upstream uses it (already divided by sqrt(group)),
     *                 strictly increasing, at least 2 entries
     * @throws IllegalArgumentException on a non-finite value or a malformed codebook
     */
    public static GroupDecision decide(float[] group, float[] codebook) {
        int n = group.length;
        ExactHadamard hadamard = ExactHadamard.ofOrder(n);
        Dyadic[] midpoints = midpoints(codebook);
        ExactHadamard.IntegerVector w = ExactHadamard.IntegerVector.of(group);
        BigInteger[] s = hadamard.transform(w.values());
        int log2n = Integer.numberOfTrailingZeros(n);

        BigInteger sumSquares = BigInteger.ZERO;
        BigInteger sumAbs = BigInteger.ZERO;
        for (int i = 0; i < n; i++) {
            sumSquares = sumSquares.add(s[i].multiply(s[i]));
            sumAbs = sumAbs.add(w.values()[i].abs());
        }
        Dyadic n2 = new Dyadic(sumSquares, 2 * w.exponent());
        Dyadic normSquare = n2.scaleByPowerOfTwo(-log2n);
        Dyadic guardSquare = Dyadic.of(UpstreamRoundingBound.TAU).square().scaleByPowerOfTwo(log2n);
        Dyadic denominatorSquare = Dyadic.max(n2, guardSquare);
        BigDecimal denominator = denominatorSquare.toBigDecimal().sqrt(MC);
        BigDecimal inverseDenominator = BigDecimal.ONE.divide(denominator, MC);

        int[] codes = new int[n];
        double[] unit = new double[n];
        double[] lower = new double[n];
        double[] upper = new double[n];
        for (int i = 0; i < n; i++) {
            Dyadic si = new Dyadic(s[i], w.exponent());
            int code = cellOf(si, midpoints, denominatorSquare);
            codes[i] = code;
            unit[i] = si.toBigDecimal().multiply(inverseDenominator, MC).doubleValue();
            lower[i] = code > 0 ? distance(si, midpoints[code - 1], denominatorSquare, denominator, inverseDenominator)
                    : Double.POSITIVE_INFINITY;
            upper[i] = code < midpoints.length
                    ? distance(si, midpoints[code], denominatorSquare, denominator, inverseDenominator)
                    : Double.POSITIVE_INFINITY;
        }

        BigDecimal norm = normSquare.toBigDecimal().sqrt(MC);
        int half = Float16Rounding.roundRoot(normSquare, norm.doubleValue());
        BigDecimal lowerNorm = half > 0 ? rootDistance(normSquare, norm, Float16Rounding.midpoint(half - 1)) : null;
        BigDecimal upperNorm = half < Float16Rounding.INFINITY_BITS
                ? rootDistance(normSquare, norm, Float16Rounding.midpoint(half)) : null;
        BigDecimal nearestNorm = lowerNorm == null ? upperNorm
                : upperNorm == null ? lowerNorm : lowerNorm.min(upperNorm);
        double norm16Margin = norm.signum() == 0 ? Double.POSITIVE_INFINITY
                : nearestNorm.divide(norm, MC).doubleValue();
        double l1 = new Dyadic(sumAbs, w.exponent()).toBigDecimal().doubleValue();
        UpstreamRoundingBound bound = new UpstreamRoundingBound(n, l1, norm.doubleValue(), maxGap(codebook));
        return new GroupDecision(codes, unit, lower, upper, codebook.length, norm, (short) half,
                asDouble(lowerNorm), asDouble(upperNorm), norm16Margin, bound);
    }

    /**
     * Decides every group of a row-major [out, in] float32 matrix, rows zero-padded to a multiple
     * of {@code group}; result [row][group index].
     *
     * @throws IllegalArgumentException naming (row, col) of the first NaN or infinity, or on bad
     *                                  dimensions
     */
    public static GroupDecision[][] quantizeMatrix(float[] rowMajor, int out, int in, int group, float[] codebook) {
        if (out < 0 || in < 0 || (long) out * in != rowMajor.length) {
            throw new IllegalArgumentException("matrix of " + rowMajor.length + " values is not " + out + " x " + in);
        }
        ExactHadamard.ofOrder(group);
        for (int i = 0; i < rowMajor.length; i++) {
            if (!Float.isFinite(rowMajor[i])) {
                throw new IllegalArgumentException("non-finite value " + rowMajor[i] + " at (row "
                        + i / in + ", col " + i % in + ")");
            }
        }
        int groups = (in + group - 1) / group;
        GroupDecision[][] result = new GroupDecision[out][groups];
        for (int r = 0; r < out; r++) {
            for (int g = 0; g < groups; g++) {
                float[] padded = new float[group];
                int from = g * group;
                System.arraycopy(rowMajor, r * in + from, padded, 0, Math.min(group, in - from));
                result[r][g] = decide(padded, codebook);
            }
        }
        return result;
    }

    private static Dyadic[] midpoints(float[] codebook) {
        if (codebook.length < 2) throw new IllegalArgumentException("codebook needs at least 2 entries");
        Dyadic[] m = new Dyadic[codebook.length - 1];
        for (int k = 0; k < m.length; k++) {
            if (!(codebook[k] < codebook[k + 1])) {
                throw new IllegalArgumentException("codebook must be finite and strictly increasing at entry " + k);
            }
            m[k] = Dyadic.of(codebook[k]).add(Dyadic.of(codebook[k + 1])).scaleByPowerOfTwo(-1);
        }
        return m;
    }

    private static double maxGap(float[] codebook) {
        double gap = 0;
        for (int k = 0; k + 1 < codebook.length; k++) gap = Math.max(gap, (double) codebook[k + 1] - codebook[k]);
        return gap;
    }

    /** Number of midpoints strictly below u = s / sqrt(p): the code, ties to the smaller index. */
    private static int cellOf(Dyadic s, Dyadic[] midpoints, Dyadic p) {
        int lo = 0, hi = midpoints.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (compareUnit(s, midpoints[mid], p) > 0) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    /** Exact sign of {@code s / sqrt(p) - m}, for p &gt; 0. */
    static int compareUnit(Dyadic s, Dyadic m, Dyadic p) {
        int ss = s.signum(), sm = m.signum();
        if (ss != sm) return Integer.compare(ss, sm);
        if (ss == 0) return 0;
        int c = s.square().compareTo(m.square().multiply(p));
        return ss > 0 ? c : -c;
    }

    /**
     * {@code |s / sqrt(p) - m|} without cancellation: for equal signs it is
     * |s^2 - m^2 p| / (sqrt(p) (|s| + |m| sqrt(p))) with an exact numerator.
     */
    private static double distance(Dyadic s, Dyadic m, Dyadic p, BigDecimal sqrtP, BigDecimal inverseSqrtP) {
        BigDecimal absS = s.abs().toBigDecimal();
        BigDecimal absMRootP = m.abs().toBigDecimal().multiply(sqrtP, MC);
        if (s.signum() * m.signum() <= 0) {
            return absS.add(absMRootP, MC).multiply(inverseSqrtP, MC).doubleValue();
        }
        BigDecimal numerator = s.square().subtract(m.square().multiply(p)).abs().toBigDecimal().round(MC);
        return numerator.multiply(inverseSqrtP, MC).divide(absS.add(absMRootP, MC), MC).doubleValue();
    }

    /** {@code |sqrt(square) - m|} for m &gt;= 0, as |square - m^2| / (root + m). */
    private static BigDecimal rootDistance(Dyadic square, BigDecimal root, Dyadic m) {
        BigDecimal numerator = square.subtract(m.square()).abs().toBigDecimal();
        return numerator.divide(root.add(m.toBigDecimal(), MC), MC);
    }

    private static double asDouble(BigDecimal distance) {
        return distance == null ? Double.POSITIVE_INFINITY : distance.doubleValue();
    }
}
