package dev.needlewb.reference;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Vec and FloatRows against their stated order written as scalar loops, bit for bit: 8 logical lanes,
 * lane j a chain of {@link Math#fma} over elements j, j + 8, ..., the lanes added in order, then the
 * unfused scalar tail. Equal bits at the execution's width, for lengths with and without a tail, mean
 * the same bits at every width.
 */
@Tag("width")
@Tag("kernel")
class VecTest {

    @ParameterizedTest
    @ValueSource(ints = {64, 75, 7, 0, 512})
    void dotAndAxpyFollowTheLogicalLaneOrder(int n) {
        SplittableRandom random = new SplittableRandom(n);
        double[] a = gaussian(random, n + 2);
        double[] b = gaussian(random, n + 1);
        assertThat(Vec.dot(a, 2, b, 1, n)).isEqualTo(dot(a, 2, b, 1, n));

        double alpha = random.nextGaussian();
        double[] y = b.clone();
        Vec.axpy(alpha, a, 2, y, 1, n);
        int body = n & -Vec.LANES;
        for (int i = 0; i < n; i++) {
            double want = i < body ? Math.fma(a[2 + i], alpha, b[1 + i]) : b[1 + i] + alpha * a[2 + i];
            assertThat(y[1 + i]).as("y[%d]", i).isEqualTo(want);
        }
        assertThat(y[0]).isEqualTo(b[0]);
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 75, 3})
    void floatRowsFollowTheLogicalLaneOrder(int in) {
        SplittableRandom random = new SplittableRandom(in);
        int out = 7; // four outputs at a time, then three one by one
        double[] w = new double[in * out];
        for (int i = 0; i < w.length; i++) w[i] = (float) random.nextGaussian();
        double[] x = gaussian(random, in);
        double[] y = FloatRows.ofExact(w, in, out).apply(x);
        for (int o = 0; o < out; o++) {
            double[] column = new double[in];
            for (int i = 0; i < in; i++) column[i] = w[i * out + o];
            assertThat(y[o]).as("y[%d]", o).isEqualTo(dot(column, 0, x, 0, in));
        }
    }

    private static double dot(double[] a, int aOff, double[] b, int bOff, int n) {
        int body = n & -Vec.LANES;
        double s = 0;
        for (int lane = 0; lane < Vec.LANES; lane++) {
            double chain = 0;
            for (int i = lane; i < body; i += Vec.LANES) chain = Math.fma(a[aOff + i], b[bOff + i], chain);
            s += chain;
        }
        for (int i = body; i < n; i++) s += a[aOff + i] * b[bOff + i];
        return s;
    }

    private static double[] gaussian(SplittableRandom random, int n) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) v[i] = random.nextGaussian();
        return v;
    }
}
