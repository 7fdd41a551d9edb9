package dev.needlewb.reference.v3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.reference.MiniGolden;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** One Kronecker stage against the dense sums upstream's einsums define, written out index by index. */
class KroneckerMlpTest {
    /** Sums of at most 1024 products reordered: 1e-14 relative is far above their rounding, far below any index mistake. */
    private static final double TOLERANCE = 1e-14;

    /** The factor products of {@code Z[i][j]}'s contribution to {@code Y[k][l]}. */
    @FunctionalInterface
    private interface Weight {
        double of(int i, int j, int k, int l);
    }

    /** Shared factors: {@code z @ kron(A, B)}, kron(A, B)[(i*bb + j), (k*bb + l)] = A[i][k] B[j][l] ("...ij,ik,jl->...kl"). */
    @ParameterizedTest
    @CsvSource({"1,1,1", "3,8,16", "2,32,32", "5,2,4"})
    void sharedStageIsTheKroneckerProduct(int rows, int ba, int bb) {
        SplittableRandom r = new SplittableRandom(ba * 31 + bb);
        double[] z = gaussians(r, rows * ba * bb);
        double[] a = gaussians(r, ba * ba);
        double[] b = gaussians(r, bb * bb);
        double[] expected = dense(z, rows, ba, bb, (i, j, k, l) -> a[i * ba + k] * b[j * bb + l]);
        assertThat(MiniGolden.relativeError(KroneckerMlp.sharedStage(z, rows, a, b, ba, bb), expected)).isLessThan(TOLERANCE);
    }

    /** block_untied ("...ij,jik,kjl->...kl"): Y[k][l] = sum_i sum_j Z[i][j] A[j][i][k] B[k][j][l]. */
    @ParameterizedTest
    @CsvSource({"1,1,1", "3,8,16", "2,4,4", "33,2,4"})
    void untiedStageIsTheEinsum(int rows, int ba, int bb) {
        SplittableRandom r = new SplittableRandom(ba * 17 + bb);
        double[] z = gaussians(r, rows * ba * bb);
        double[] a = gaussians(r, bb * ba * ba);
        double[] b = gaussians(r, ba * bb * bb);
        double[] expected = dense(z, rows, ba, bb, (i, j, k, l) -> a[(j * ba + i) * ba + k] * b[(k * bb + j) * bb + l]);
        assertThat(MiniGolden.relativeError(KroneckerMlp.untiedStage(z, rows, a, b, ba, bb), expected)).isLessThan(TOLERANCE);
    }

    /** {@code Y[t][k][l] = sum_i sum_j Z[t][i][j] w(i, j, k, l)}, Z and Y rows of ba x bb. */
    private static double[] dense(double[] z, int rows, int ba, int bb, Weight w) {
        int n = ba * bb;
        double[] y = new double[rows * n];
        for (int t = 0; t < rows; t++)
            for (int k = 0; k < ba; k++)
                for (int l = 0; l < bb; l++) {
                    double s = 0;
                    for (int i = 0; i < ba; i++)
                        for (int j = 0; j < bb; j++) s += z[t * n + i * bb + j] * w.of(i, j, k, l);
                    y[t * n + k * bb + l] = s;
                }
        return y;
    }

    private static double[] gaussians(SplittableRandom r, int n) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) v[i] = r.nextGaussian();
        return v;
    }
}
