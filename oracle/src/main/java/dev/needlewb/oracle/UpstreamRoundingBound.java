package dev.needlewb.oracle;

/**
 * Rigorous bounds on how far upstream's float32 CQ computation of one group can land from the
 * exact values the oracle computes. Upstream ({@code export._cq_pack}) does, in float32:
 * <pre>
 *   rot  = g @ Hf          Hf entries ±h^, h^ = float32(1/sqrt(n))  (BLAS sgemm)
 *   norm = sqrt(sum(rot**2))
 *   unit = rot / max(norm, float32(1e-12))
 *   idx  = nearer of the two codebook neighbours of unit, compared as |unit-c| in float32
 * </pre>
 *
 * <p>Notation: n the group length, eps = 2^-24, gamma_k = k eps / (1 - k eps), eta = 2^-150 (the
 * absolute error of a product or quotient that underflows; additions of floats that underflow
 * are exact), A = sum_i |w_i| (exact), x = ||w H/sqrt(n)||_2 (the exact norm), tau =
 * float32(1e-12), D = max(x, tau), u_j = r_j / D the exact unit coordinate (r = w H/sqrt(n)).
 * The analysis assumes a conventional dot product (any summation order or blocking, with or
 * without FMA; Higham, "Accuracy and Stability of Numerical Algorithms", sec. 3.1) and round to
 * nearest.
 * <ol>
 *   <li>H entry: h^ = (1 + d0)/sqrt(n) with |d0| &lt;= 3 eps, whether 1/sqrt(n) is formed in
 *       float64 and rounded to float32 (numpy 2) or formed in float32 throughout.</li>
 *   <li>Rotation: all |H entries| are equal, so rot_j = (1 + d0) r_j + e_j with
 *       |e_j| &lt;= E_rot = gamma_n h^ A + n 2^-149 (the underflow of each product, carried
 *       through at most n - 1 additions, is at most 2 eta).</li>
 *   <li>Norm: R = ||rot||_2 satisfies |R - x| &lt;= 3 eps x + sqrt(n) E_rot, hence R &lt;= R_max =
 *       (1 + 3 eps) x + sqrt(n) E_rot. The float32 sum of squares is R^2 (1 + t) + e' with
 *       |t| &lt;= gamma_n, |e'| &lt;= n 2^-149; with sqrt(a + b) &lt;= sqrt(a) + sqrt(b) and one
 *       rounding of the square root, |norm - R| &lt;= gamma_{n+1} R + (1 + eps) sqrt(n 2^-149).
 *       Together: |norm - x| &lt;= E_norm = 3 eps x + sqrt(n) E_rot + gamma_{n+1} R_max +
 *       (1 + eps) sqrt(n 2^-149). The stored float16 is float16(norm); if x is farther than
 *       E_norm from a float16 rounding midpoint, upstream's float16 equals the exact rounding.</li>
 *   <li>Unit: max(., tau) is 1-Lipschitz, so |max(norm, tau) - D| &lt;= E_norm, and with
 *       rot_j - r_j = d0 r_j + e_j: |rot_j / max(norm, tau) - u_j| &lt;= Delta_j =
 *       (3 eps |u_j| D + E_rot + |u_j| E_norm) / (D - E_norm). The division adds
 *       eps (|u_j| + Delta_j) + eta.</li>
 *   <li>Nearest entry: rounding is monotone, so the float32 comparison |unit - c_k| &lt;=
 *       |unit - c_(k+1)| can only err towards the lower entry, and only when unit - m_k &lt;=
 *       eps (c_(k+1) - c_k) / 2 (m_k the midpoint); bounded here by eps * maxGap / 2.</li>
 * </ol>
 * The code radius of element j is Delta_j + eps (|u_j| + Delta_j) + eta + eps maxGap / 2: if the
 * exact u_j is farther than that from the midpoint m_k, upstream's code agrees with the exact
 * one on that boundary. Both bounds are evaluated in double (fewer than 40 roundings, relative
 * error below 2^-47) and then inflated by 2^-40 relative, so they stay upper bounds. When a float32
 * intermediate could overflow (|w| near 1e38) there is no bound (infinity); the unit bound is
 * also infinite when E_norm &gt; D/2.
 */
final class UpstreamRoundingBound {
    static final double EPS = 0x1p-24;
    /** Half the smallest float32 subnormal: the absolute error of an underflowing product. */
    static final double ETA = 0x1p-150;
    /** Upstream's guard {@code np.maximum(norm, 1e-12)} on float32 data compares with float32(1e-12). */
    static final float TAU = 1e-12f;
    private static final double INFLATE = 1 + 0x1p-40;

    private final double rotationError;
    private final double normError;
    private final double denominator;
    private final double nearestError;
    private final boolean unitBounded;

    /**
     * @param n       group length
     * @param l1      sum of |w_i| of the group (exact value rounded to double)
     * @param norm    exact norm x rounded to double
     * @param maxGap  largest gap between adjacent codebook entries
     */
    UpstreamRoundingBound(int n, double l1, double norm, double maxGap) {
        double sqrtN = Math.sqrt(n);
        double hMax = (1 + 3 * EPS) / sqrtN;
        double underflowSum = n * 2 * ETA;
        rotationError = gamma(n) * hMax * l1 + underflowSum;
        double rMax = (1 + 3 * EPS) * norm + sqrtN * rotationError;
        boolean overflow = hMax * l1 * (1 + gamma(n)) + underflowSum > Float.MAX_VALUE
                || rMax * rMax * (1 + gamma(n)) + underflowSum > Float.MAX_VALUE;
        normError = overflow ? Double.POSITIVE_INFINITY
                : 3 * EPS * norm + sqrtN * rotationError + gamma(n + 1) * rMax
                        + (1 + EPS) * Math.sqrt(underflowSum);
        denominator = Math.max(norm, TAU);
        unitBounded = !overflow && normError <= denominator / 2;
        nearestError = EPS * maxGap / 2;
    }

    static double gamma(int k) {
        return k * EPS / (1 - k * EPS);
    }

    /** Upper bound on |float32 norm - exact norm| (before the float16 cast). */
    double normError() {
        return normError * INFLATE;
    }

    /** Code radius of an element whose exact unit coordinate has magnitude {@code absUnit}. */
    double codeRadius(double absUnit) {
        if (!unitBounded) return Double.POSITIVE_INFINITY;
        double delta = (3 * EPS * absUnit * denominator + rotationError + absUnit * normError)
                / (denominator - normError);
        return (delta + EPS * (absUnit + delta) + ETA + nearestError) * INFLATE;
    }
}
