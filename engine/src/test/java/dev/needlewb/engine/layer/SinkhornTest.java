package dev.needlewb.engine.layer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("width")
@Tag("kernel")
class SinkhornTest {

    /** Upstream's iteration in float64: subtract row then column log-sum-exp, 20 times, exp. */
    static double[] reference(float[] a, int n) {
        double[] l = new double[n * n];
        for (int i = 0; i < l.length; i++) l[i] = a[i];
        for (int it = 0; it < 20; it++) {
            for (int r = 0; r < n; r++) {
                double m = Double.NEGATIVE_INFINITY, s = 0;
                for (int c = 0; c < n; c++) m = Math.max(m, l[r * n + c]);
                for (int c = 0; c < n; c++) s += Math.exp(l[r * n + c] - m);
                for (int c = 0; c < n; c++) l[r * n + c] -= m + Math.log(s);
            }
            for (int c = 0; c < n; c++) {
                double m = Double.NEGATIVE_INFINITY, s = 0;
                for (int r = 0; r < n; r++) m = Math.max(m, l[r * n + c]);
                for (int r = 0; r < n; r++) s += Math.exp(l[r * n + c] - m);
                for (int r = 0; r < n; r++) l[r * n + c] -= m + Math.log(s);
            }
        }
        double[] p = new double[n * n];
        for (int i = 0; i < p.length; i++) p[i] = Math.exp(l[i]);
        return p;
    }

    private static float[] random(Random rnd, double spread) {
        float[] a = new float[16];
        for (int i = 0; i < 16; i++) a[i] = (float) ((rnd.nextDouble() - 0.5) * spread + (i % 5 == 0 ? 4 : 0));
        return a;
    }

    @Test
    void positiveDomainMatchesLogSpaceReference() {
        Random rnd = new Random(11);
        for (int trial = 0; trial < 200; trial++) {
            float[] a = random(rnd, 1 + trial * 0.15);
            assertThat(Sinkhorn.usesLogSpace(a, 4)).isFalse();
            float[] p = new float[16];
            Sinkhorn.apply(a, 4, p);
            double[] want = reference(a, 4);
            // Entries are <= 1; 20 float32 normalizations each round a few ulps: 2e-6 absolute.
            for (int i = 0; i < 16; i++) assertThat((double) p[i]).isCloseTo(want[i], org.assertj.core.data.Offset.offset(2e-6));
        }
    }

    @Test
    void wideRangeFallsBackToLogSpaceAndStillMatches() {
        Random rnd = new Random(12);
        for (int trial = 0; trial < 50; trial++) {
            float[] a = random(rnd, 120);
            a[3] = 70f;
            a[12] = -70f;
            assertThat(Sinkhorn.usesLogSpace(a, 4)).as("range > 40").isTrue();
            float[] p = new float[16];
            Sinkhorn.apply(a, 4, p);
            double[] want = reference(a, 4);
            // Computed in float64, rounded once to float32.
            for (int i = 0; i < 16; i++) assertThat((double) p[i]).isCloseTo(want[i], org.assertj.core.data.Offset.offset(1e-7));
        }
    }

    @Test
    void theCriterionIsTheRangeOfA() {
        float[] a = new float[16];
        a[0] = 40f;
        assertThat(Sinkhorn.usesLogSpace(a, 4)).isFalse();
        a[0] = 40.01f;
        assertThat(Sinkhorn.usesLogSpace(a, 4)).isTrue();
        a[0] = Float.NaN;
        assertThat(Sinkhorn.usesLogSpace(a, 4)).as("NaN is never range-checked as fine").isTrue();
        assertThat(Sinkhorn.usesLogSpace(new float[9], 3)).as("only 4 lanes have the vector path").isTrue();
    }
}
