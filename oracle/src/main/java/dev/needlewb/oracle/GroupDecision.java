package dev.needlewb.oracle;

import java.math.BigDecimal;

/**
 * The exact CQ decision for one group (see {@link ExactCq#decide}), with distances to every
 * rounding boundary it depends on and certificates that tell a rounding-explained disagreement
 * of upstream's float32 computation from a real one.
 *
 * <p>Distances are exact values rounded to double (computed without cancellation at 60 digits);
 * a distance of 0 means the exact value lies on the boundary (an exact tie).
 */
public final class GroupDecision {
    private final int[] codes;
    private final double[] unit;
    private final double[] lowerDistance;
    private final double[] upperDistance;
    private final int codebookSize;
    private final BigDecimal exactNorm;
    private final short float16Norm;
    private final double lowerNormDistance;
    private final double upperNormDistance;
    private final double norm16Margin;
    private final UpstreamRoundingBound bound;

    GroupDecision(int[] codes, double[] unit, double[] lowerDistance, double[] upperDistance,
            int codebookSize, BigDecimal exactNorm, short float16Norm, double lowerNormDistance,
            double upperNormDistance, double norm16Margin, UpstreamRoundingBound bound) {
        this.codes = codes;
        this.unit = unit;
        this.lowerDistance = lowerDistance;
        this.upperDistance = upperDistance;
        this.codebookSize = codebookSize;
        this.exactNorm = exactNorm;
        this.float16Norm = float16Norm;
        this.lowerNormDistance = lowerNormDistance;
        this.upperNormDistance = upperNormDistance;
        this.norm16Margin = norm16Margin;
        this.bound = bound;
    }

    public int length() {
        return codes.length;
    }

    /** Index of the nearest codebook entry per element, ties to the smaller index. */
    public int[] codes() {
        return codes.clone();
    }

    /** The exact unit coordinate {@code u_i} per element, rounded to double. */
    public double[] unit() {
        return unit.clone();
    }

    /**
     * Per element, the exact distance {@code |u_i - m|} to the nearest codebook midpoint {@code m}
     * (the nearer end of its code's cell), rounded to double; infinity only for a one-cell codebook.
     */
    public double[] boundaryMargin() {
        double[] m = new double[codes.length];
        for (int i = 0; i < m.length; i++) m[i] = Math.min(lowerDistance[i], upperDistance[i]);
        return m;
    }

    /** The exact norm {@code ||w H/sqrt(n)||_2} to 60 significant digits, before float16 rounding. */
    public BigDecimal exactNorm() {
        return exactNorm;
    }

    /** IEEE float16 bits of the exact norm rounded to nearest even (0x7C00 on overflow). */
    public short float16Norm() {
        return float16Norm;
    }

    /**
     * Relative distance {@code |x - m| / x} of the exact norm x to the nearer of the two float16
     * rounding midpoints around it; infinity for an all-zero group (upstream's float32 norm of
     * zeros is exactly 0).
     */
    public double norm16Margin() {
        return norm16Margin;
    }

    /**
     * Upper bound on {@code |u_float32 - u_exact|} for this element in upstream's float32
     * computation, plus the slack of its float32 nearest-entry comparison (derivation in the
     * class comment of {@code UpstreamRoundingBound}): with eps = 2^-24, gamma_k = k eps/(1-k eps),
     * A = sum|w|, x the exact norm, D = max(x, float32(1e-12)),
     * E_rot = gamma_n A (1+3eps)/sqrt(n) + n 2^-149,
     * E_norm = 3 eps x + sqrt(n) E_rot + gamma_(n+1) ((1+3eps) x + sqrt(n) E_rot) + (1+eps) sqrt(n 2^-149),
     * Delta = (3 eps |u| D + E_rot + |u| E_norm) / (D - E_norm), the radius is
     * Delta + eps (|u| + Delta) + 2^-150 + eps maxGap/2. Infinity when float32 could overflow.
     */
    public double roundingRadius(int element) {
        return bound.codeRadius(Math.abs(unit[element]));
    }

    /** Upper bound on |float32 norm - exact norm| in upstream's computation (E_norm above). */
    public double normErrorBound() {
        return bound.normError();
    }

    /**
     * True iff {@code otherCode} is adjacent to the exact code of {@code element} and the exact
     * unit coordinate lies within {@link #roundingRadius} of the midpoint between the two codes:
     * then upstream's float32 computation may legitimately pick {@code otherCode}. (The midpoint
     * checked is the one between the two codes, which is at least as strict as comparing
     * {@link #boundaryMargin} with the radius.) A false answer for a code that differs from
     * {@code codes()[element]} means the two computations really disagree.
     */
    public boolean certifiesCode(int element, int otherCode) {
        if (otherCode < 0 || otherCode >= codebookSize) return false;
        int diff = otherCode - codes[element];
        double distance;
        if (diff == 1) {
            distance = upperDistance[element];
        } else if (diff == -1) {
            distance = lowerDistance[element];
        } else {
            return false;
        }
        return distance <= roundingRadius(element);
    }

    /**
     * True iff {@code otherHalfBits} is a float16 pattern adjacent to {@link #float16Norm} (0x7C00,
     * infinity, is adjacent to 65504) and the exact norm lies within {@link #normErrorBound} of
     * the rounding midpoint between the two, so upstream's float32 norm may round to it.
     */
    public boolean certifiesNorm(short otherHalfBits) {
        int other = otherHalfBits & 0xFFFF;
        int diff = other - float16Norm;
        if (other > Float16Rounding.INFINITY_BITS) return false;
        if (diff == 1) return upperNormDistance <= normErrorBound();
        if (diff == -1) return lowerNormDistance <= normErrorBound();
        return false;
    }
}
