package dev.needlewb.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Seeded random groups: the exact decision against brute force, and the bounds against float32. */
class ExactCqPropertyTest {
    private static final int[] GROUPS = {64, 128};
    private static final String[] BITS = {"b2", "b3", "b4", "ternary"};
    private static Map<String, GoldenData.Array> codebooks;

    @BeforeAll
    static void load() {
        codebooks = GoldenData.npz("common/codebooks.npz");
    }

    static float[] codebook(String bits, int group) {
        return codebooks.get("cb." + bits + ".g" + group).floats();
    }

    enum Kind { GAUSSIAN, SUBNORMAL, MIXED, HUGE, SPREAD, TINY, NEAR_GUARD, SPARSE, ZERO }

    static float[] group(Kind kind, int n, Random rnd) {
        float[] w = new float[n];
        for (int i = 0; i < n; i++) {
            double sign = rnd.nextBoolean() ? 1 : -1;
            w[i] = switch (kind) {
                case GAUSSIAN -> (float) (0.02 * rnd.nextGaussian());
                case SUBNORMAL -> Float.intBitsToFloat(rnd.nextInt(1 << 23)) * (float) sign;
                case MIXED -> switch (rnd.nextInt(3)) {
                    case 0 -> Float.intBitsToFloat(rnd.nextInt(1 << 23)) * (float) sign;
                    case 1 -> (float) rnd.nextGaussian();
                    default -> 0f;
                };
                case HUGE -> (float) (sign * (0.1 + rnd.nextDouble()) * 3e38);
                case SPREAD -> (float) (sign * Math.pow(10, -45 + 83 * rnd.nextDouble()));
                case TINY -> (float) (1e-20 * rnd.nextGaussian());
                case NEAR_GUARD -> (float) (1e-12 / Math.sqrt(n) * rnd.nextGaussian());
                case SPARSE -> rnd.nextInt(16) == 0 ? (float) rnd.nextGaussian() : 0f;
                case ZERO -> 0f;
            };
        }
        return w;
    }

    @Test
    void decideEqualsBruteForceAt100Digits() {
        Random rnd = new Random(2026);
        int checked = 0;
        for (Kind kind : Kind.values()) {
            for (int n : GROUPS) {
                for (String bits : BITS) {
                    for (int trial = 0; trial < 2; trial++) {
                        float[] w = group(kind, n, rnd);
                        assertMatchesNaive(w, codebook(bits, n), kind + " n" + n + " " + bits + " #" + trial);
                        checked++;
                    }
                }
            }
        }
        assertThat(checked).isEqualTo(Kind.values().length * GROUPS.length * BITS.length * 2);
    }

    @Test
    void exactTiesGoToTheSmallerIndexWithZeroMargin() {
        Random rnd = new Random(7);
        int ties = 0;
        for (int trial = 0; trial < 24; trial++) {
            int n = GROUPS[trial % 2];
            int m = 3 + rnd.nextInt(4);
            long[] s = sumOfSquaresIsPowerOfFour(n, m, rnd);
            float[] w = inverseRotation(s);
            // Unit coordinates are s_j / 2^m; a codebook with midpoints at (s0 - 1, s0, s0 + 1) / 2^m
            // puts elements with those values exactly on a boundary.
            long s0 = s[rnd.nextInt(n)];
            float step = (float) Math.scalb(1.0, -m);
            float[] cb = {(s0 - 1.5f) * step, (s0 - 0.5f) * step, (s0 + 0.5f) * step, (s0 + 1.5f) * step};
            GroupDecision d = assertMatchesNaive(w, cb, "tie group " + trial);
            int[] codes = d.codes();
            double[] margins = d.boundaryMargin();
            for (int j = 0; j < n; j++) {
                long offset = s[j] - s0;
                if (Math.abs(offset) <= 1) {
                    ties++;
                    assertThat(margins[j]).isZero();
                    assertThat(codes[j]).isEqualTo((int) offset + 1);
                } else {
                    assertThat(margins[j]).isPositive();
                }
            }
        }
        assertThat(ties).isGreaterThanOrEqualTo(24);
    }

    /** A random integer vector with sum of squares exactly 4^m (so |s| is the dyadic 2^m). */
    static long[] sumOfSquaresIsPowerOfFour(int n, int m, Random rnd) {
        while (true) {
            long[] s = new long[n];
            long remaining = 1L << (2 * m);
            List<Integer> free = new ArrayList<>();
            for (int i = 0; i < n; i++) free.add(i);
            Collections.shuffle(free, rnd);
            for (int k = 0; k < n && remaining > 0; k++) {
                long root = (long) Math.floor(Math.sqrt(remaining));
                long v = k < n / 4 ? rnd.nextLong(root + 1) : root; // random start, greedy finish
                int slot = free.get(k);
                s[slot] = rnd.nextBoolean() ? v : -v;
                remaining -= v * v;
            }
            if (remaining == 0) return s;
        }
    }

    /** w with H w = s exactly: w = H s / n, exact in float32 for these small integers. */
    static float[] inverseRotation(long[] s) {
        int n = s.length;
        float[] w = new float[n];
        for (int i = 0; i < n; i++) {
            long acc = 0;
            for (int j = 0; j < n; j++) acc += (Integer.bitCount(i & j) & 1) == 0 ? s[j] : -s[j];
            w[i] = (float) acc / n;
            assertThat((double) w[i] * n).isEqualTo((double) acc);
        }
        return w;
    }

    private static GroupDecision assertMatchesNaive(float[] w, float[] cb, String what) {
        GroupDecision d = ExactCq.decide(w, cb);
        NaiveCq.Result naive = NaiveCq.evaluate(w, cb);
        assertThat(d.codes()).as(what).containsExactly(naive.codes());
        double[] margins = d.boundaryMargin();
        double[] unit = d.unit();
        for (int j = 0; j < w.length; j++) {
            // Both are the exact value (>= 50 correct digits) rounded once to double: equal, or one ulp
            // apart if the exact value is within 1e-50 of a rounding midpoint of double.
            double expectedMargin = naive.margin()[j].doubleValue();
            assertThat(margins[j]).as("%s margin %d", what, j).isCloseTo(expectedMargin, offset(Math.ulp(expectedMargin)));
            double expectedUnit = naive.unit()[j].doubleValue();
            assertThat(unit[j]).as("%s unit %d", what, j).isCloseTo(expectedUnit, offset(Math.ulp(expectedUnit)));
        }
        // exactNorm carries 60 digits, the naive one 100: they agree to 1e-55 relative.
        BigDecimal tolerance = naive.norm().abs().movePointLeft(55);
        assertThat(d.exactNorm().subtract(naive.norm()).abs()).as(what + " norm").isLessThanOrEqualTo(tolerance);
        assertThat(d.float16Norm() & 0xFFFF).as(what + " float16 norm").isEqualTo(naive.half());
        if (naive.norm16Margin() == null) {
            assertThat(d.norm16Margin()).isInfinite();
        } else {
            // both the exact value to >= 50 digits rounded once to double
            double expected = naive.norm16Margin().doubleValue();
            assertThat(d.norm16Margin()).as(what + " norm16Margin").isCloseTo(expected, offset(Math.ulp(expected)));
        }
        return d;
    }

    @Test
    void float16NormRoundingHandlesTiesSubnormalsAndOverflow() {
        // One nonzero element v in a group of 64: norm = |v| exactly (H/8 is orthonormal).
        float[][] cases = {
            {65504f, 0x7BFF}, {65519.996f, 0x7BFF}, {65520f, 0x7C00}, {3e38f, 0x7C00},
            {1f + 0x1p-11f, 0x3C00}, // tie between 1 and 1 + 2^-10: even mantissa (1)
            {1f + 3 * 0x1p-11f, 0x3C02}, // tie between 1 + 2^-10 and 1 + 2^-9: even
            {0x1p-25f, 0x0000}, {Math.nextUp(0x1p-25f), 0x0001}, {0x1p-24f, 0x0001}, {3 * 0x1p-25f, 0x0002}, // subnormal ties
            {1e-30f, 0x0000}};
        float[] cb = codebook("b2", 64);
        for (float[] c : cases) {
            float[] w = new float[64];
            w[5] = -c[0];
            GroupDecision d = ExactCq.decide(w, cb);
            BigDecimal v = new BigDecimal(c[0]);
            // 60 significant digits of the exact |v|
            assertThat(d.exactNorm().subtract(v).abs()).isLessThanOrEqualTo(v.movePointLeft(59));
            assertThat(d.float16Norm() & 0xFFFF).as("norm %s", c[0]).isEqualTo((int) c[1]);
        }
    }

    @Test
    void boundsHoldForFloat32ArithmeticInEitherSummationOrder() {
        Random rnd = new Random(99);
        Kind[] bounded = {Kind.GAUSSIAN, Kind.SUBNORMAL, Kind.MIXED, Kind.TINY, Kind.NEAR_GUARD, Kind.SPARSE, Kind.ZERO};
        for (Kind kind : bounded) {
            for (int n : GROUPS) {
                for (String bits : BITS) {
                    for (int trial = 0; trial < 4; trial++) {
                        float[] w = group(kind, n, rnd);
                        assertFloat32WithinBounds(w, codebook(bits, n), kind + " n" + n + " " + bits);
                    }
                }
            }
        }
        GroupDecision huge = ExactCq.decide(group(Kind.HUGE, 128, rnd), codebook("b2", 128));
        assertThat(huge.normErrorBound()).as("float32 would overflow: no bound").isInfinite();
        assertThat(huge.roundingRadius(0)).isInfinite();
    }

    @Test
    void certificatesAreTightEnoughToMeanSomething() {
        Random rnd = new Random(5);
        for (int trial = 0; trial < 20; trial++) {
            GroupDecision d = ExactCq.decide(group(Kind.GAUSSIAN, 128, rnd), codebook("b2", 128));
            // Worst-case bound ~ (|u| sqrt(n) + 1) n eps with n eps = 7.6e-6: far below the cell
            // width (~0.09) but far above typical float32 error; 1e-4 / 1e-3 leave room for |u| up to 1.
            for (int j = 0; j < 128; j++) assertThat(d.roundingRadius(j)).isLessThan(1e-4);
            assertThat(d.normErrorBound() / d.exactNorm().doubleValue()).isLessThan(1e-3);
        }
    }

    @Test
    void nearTieGroupsDisagreeWithFloat32OnlyWhereCertified() {
        // Groups [1, b, 0, ...]: u at even columns is (1 + b) / sqrt(n (1 + b^2)); solving for a
        // midpoint m and scanning float32 values of b around the root gives exact u within a few
        // float32 rounding errors of m, where float32 upstream may pick the other side.
        int disagreements = 0;
        for (int n : GROUPS) {
            for (String bits : BITS) {
                float[] cb = codebook(bits, n);
                for (int k = 0; k + 1 < cb.length; k++) {
                    double m = ((double) cb[k] + cb[k + 1]) / 2;
                    double a = 1 - n * m * m;
                    if (Math.abs(a) >= 1 || a == 0) continue;
                    for (double root : new double[] {(-1 + Math.sqrt(1 - a * a)) / a, (-1 - Math.sqrt(1 - a * a)) / a}) {
                        if (Math.signum(1 + root) != Math.signum(m)) continue;
                        float b = (float) root;
                        for (int step = 0; step < 12; step++) {
                            float[] w = new float[n];
                            w[0] = 1f;
                            w[1] = b;
                            disagreements += assertFloat32WithinBounds(w, cb, "near tie n" + n + " " + bits + " k" + k);
                            b = step % 2 == 0 ? Math.nextUp(b) : Math.nextDown(Math.nextDown(b));
                        }
                    }
                }
            }
        }
        System.out.println("near-tie groups: " + disagreements + " certified float32 disagreements");
        assertThat(disagreements).as("the scan must actually reach float32-fragile codes").isPositive();
    }

    /** Returns the number of (certified) code disagreements between float32 and exact. */
    private static int assertFloat32WithinBounds(float[] w, float[] cb, String what) {
        GroupDecision d = ExactCq.decide(w, cb);
        int[] codes = d.codes();
        double[] unit = d.unit();
        double exactNorm = d.exactNorm().doubleValue();
        int disagreements = 0;
        for (boolean backward : new boolean[] {false, true}) {
            UpstreamFloat32.Result f = UpstreamFloat32.quantize(w, cb, backward);
            // The double exactNorm/unit carry 2^-53 relative rounding, far inside the 2^-40 inflation.
            assertThat(Math.abs(f.norm() - exactNorm)).as(what + " norm").isLessThanOrEqualTo(d.normErrorBound());
            if (f.norm16() != d.float16Norm()) assertThat(d.certifiesNorm(f.norm16())).as(what + " norm16").isTrue();
            for (int j = 0; j < w.length; j++) {
                assertThat(Math.abs(f.unit()[j] - unit[j])).as("%s unit %d", what, j).isLessThanOrEqualTo(d.roundingRadius(j));
                if (f.codes()[j] != codes[j]) {
                    disagreements++;
                    assertThat(d.certifiesCode(j, f.codes()[j])).as("%s code %d", what, j).isTrue();
                }
            }
        }
        return disagreements;
    }

    @Test
    void quantizeMatrixPadsRowsAndNamesNonFiniteValues() {
        Random rnd = new Random(3);
        float[] m = new float[3 * 70];
        for (int i = 0; i < m.length; i++) m[i] = (float) rnd.nextGaussian();
        GroupDecision[][] d = ExactCq.quantizeMatrix(m, 3, 70, 64, codebook("b3", 64));
        assertThat(d).hasDimensions(3, 2);
        float[] padded = new float[64];
        System.arraycopy(m, 2 * 70 + 64, padded, 0, 6);
        assertThat(d[2][1].codes()).containsExactly(ExactCq.decide(padded, codebook("b3", 64)).codes());
        m[70 + 33] = Float.NaN;
        assertThatThrownBy(() -> ExactCq.quantizeMatrix(m, 3, 70, 64, codebook("b3", 64)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("(row 1, col 33)");
        m[70 + 33] = Float.NEGATIVE_INFINITY;
        assertThatThrownBy(() -> ExactCq.quantizeMatrix(m, 3, 70, 64, codebook("b3", 64)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("(row 1, col 33)");
        assertThatThrownBy(() -> ExactCq.decide(new float[64], new float[] {0.1f, 0.1f}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("strictly increasing");
    }

    @Test
    void certifiesNothingThatIsNotAdjacent() {
        GroupDecision d = ExactCq.decide(group(Kind.GAUSSIAN, 64, new Random(1)), codebook("b4", 64));
        int code = d.codes()[0];
        assertThat(d.certifiesCode(0, code)).isFalse();
        assertThat(d.certifiesCode(0, code + 2)).isFalse();
        assertThat(d.certifiesCode(0, -1)).isFalse();
        assertThat(d.certifiesNorm(d.float16Norm())).isFalse();
        assertThat(d.certifiesNorm((short) (d.float16Norm() + 2))).isFalse();
    }
}
