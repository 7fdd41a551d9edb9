package dev.needlewb.reference.v3;

import dev.needlewb.reference.Blas;
import dev.needlewb.reference.Norms;
import dev.needlewb.reference.RowChunks;
import dev.needlewb.reference.Taps;

/**
 * Needle 3's "Hadamard" MLP ({@code HadamardMLP}): no fixed transform at run time, three stages
 * of learned Kronecker factors with fixed permutations between them and a rank-8 conditioner.
 * For the normalised input x [d] and n = hada_n:
 * <pre>
 *   cond = 1 + softmax(x @ cond_v) @ cond_u                    [n]
 *   z1   = F1(d1 * pad(x))[p1]
 *   z2   = F2(silu(d2 * cond * z1 + b2))[p2]
 *   z3   = F3(d3 * z2)
 *   out  = (d4 * z3)[0:d]
 * </pre>
 * where F views z as the ba x bb matrix Z[i][j] = z[i*bb + j] and gives Y = A^T Z B with the
 * stage's shared factors (A [ba, ba], B [bb, bb]: {@code z @ kron(A, B)}), or with block_untied
 * factors T[k][j] = sum_i Z[i][j] A[j][i][k], Y[k][l] = sum_j T[k][j] B[k][j][l].
 */
final class KroneckerMlp {
    private KroneckerMlp() {}

    /**
     * The MLP of every row of {@code x} [count, d]; taps {@code mlp.cond}, {@code mlp.z1},
     * {@code mlp.z2}, {@code mlp.z3} [count, n] and {@code mlp.out} [count, d] under {@code tap}.
     */
    static double[] forward(double[] x, int count, int d, V3MlpWeights w, MlpPermutations perms, int ba, int bb,
                            boolean untied, Taps taps, String tap) {
        int n = ba * bb;
        double[] cond = conditioner(x, count, w);
        if (taps.wants(tap, "mlp.cond")) taps.record(tap + "mlp.cond", cond, count, n);

        double[] z = new double[count * n];
        for (int i = 0; i < count; i++) for (int j = 0; j < d; j++) z[i * n + j] = w.d1()[j] * x[i * d + j];
        double[] z1 = gathered(stage(z, count, w, 0, ba, bb, untied), count, n, perms.after(0));
        if (taps.wants(tap, "mlp.z1")) taps.record(tap + "mlp.z1", z1, count, n);

        double[] a = new double[count * n];
        for (int i = 0; i < count; i++) {
            for (int j = 0; j < n; j++) a[i * n + j] = Norms.silu(w.d2()[j] * cond[i * n + j] * z1[i * n + j] + w.b2()[j]);
        }
        double[] z2 = gathered(stage(a, count, w, 1, ba, bb, untied), count, n, perms.after(1));
        if (taps.wants(tap, "mlp.z2")) taps.record(tap + "mlp.z2", z2, count, n);

        for (int i = 0; i < count; i++) for (int j = 0; j < n; j++) z2[i * n + j] *= w.d3()[j];
        double[] z3 = stage(z2, count, w, 2, ba, bb, untied);
        if (taps.wants(tap, "mlp.z3")) taps.record(tap + "mlp.z3", z3, count, n);

        double[] out = new double[count * d];
        for (int i = 0; i < count; i++) for (int j = 0; j < d; j++) out[i * d + j] = w.d4()[j] * z3[i * n + j];
        if (taps.wants(tap, "mlp.out")) taps.record(tap + "mlp.out", out, count, d);
        return out;
    }

    /** {@code 1 + softmax(x @ cond_v) @ cond_u}, the softmax over the rank (max-subtracted). */
    private static double[] conditioner(double[] x, int count, V3MlpWeights w) {
        double[] c = w.condV().apply(x, count);
        int rank = w.condV().out();
        for (int i = 0; i < count; i++) {
            double max = Double.NEGATIVE_INFINITY;
            for (int r = 0; r < rank; r++) max = Math.max(max, c[i * rank + r]);
            double sum = 0;
            for (int r = 0; r < rank; r++) {
                c[i * rank + r] = Math.exp(c[i * rank + r] - max);
                sum += c[i * rank + r];
            }
            for (int r = 0; r < rank; r++) c[i * rank + r] /= sum;
        }
        double[] cond = w.condU().apply(c, count);
        for (int i = 0; i < cond.length; i++) cond[i] += 1;
        return cond;
    }

    /** {@code out[t][m] = z[t][perm[m]]}. */
    private static double[] gathered(double[] z, int count, int n, int[] perm) {
        double[] out = new double[z.length];
        for (int t = 0; t < count; t++) for (int m = 0; m < n; m++) out[t * n + m] = z[t * n + perm[m]];
        return out;
    }

    private static double[] stage(double[] z, int count, V3MlpWeights w, int s, int ba, int bb, boolean untied) {
        return untied ? untiedStage(z, count, w.factorA()[s], w.factorB()[s], ba, bb)
                : sharedStage(z, count, w.factorA()[s], w.factorB()[s], ba, bb);
    }

    /**
     * {@code Y = A^T Z B} for every row as two batched products: S = Z^T A over the rows (t, j)
     * of the transposed blocks, then Y = S^T B over the rows (t, k).
     */
    static double[] sharedStage(double[] z, int count, double[] a, double[] b, int ba, int bb) {
        int n = ba * bb;
        double[] zt = new double[z.length];
        for (int t = 0; t < count; t++) transpose(z, t * n, ba, bb, zt);
        double[] s = Blas.multiply(zt, count * bb, ba, a, ba, false);
        double[] st = new double[s.length];
        for (int t = 0; t < count; t++) transpose(s, t * n, bb, ba, st);
        return Blas.multiply(st, count * ba, bb, b, bb, false);
    }

    /** {@code out[off + c*rows + r] = in[off + r*cols + c]}: one rows x cols block transposed. */
    private static void transpose(double[] in, int off, int rows, int cols, double[] out) {
        for (int r = 0; r < rows; r++) for (int c = 0; c < cols; c++) out[off + c * rows + r] = in[off + r * cols + c];
    }

    /** The block_untied stage: column j of Z has its own A[j] [ba, ba], row k of the result its own B[k] [bb, bb]. */
    static double[] untiedStage(double[] z, int count, double[] a, double[] b, int ba, int bb) {
        int n = ba * bb;
        double[] y = new double[z.length];
        RowChunks.forEach(count, (from, to) -> {
            double[] t = new double[n];
            for (int row = from; row < to; row++) {
                int off = row * n;
                java.util.Arrays.fill(t, 0.0);
                for (int j = 0; j < bb; j++)
                    for (int i = 0; i < ba; i++) {
                        double zij = z[off + i * bb + j];
                        for (int k = 0; k < ba; k++) t[k * bb + j] += zij * a[(j * ba + i) * ba + k];
                    }
                for (int k = 0; k < ba; k++)
                    for (int j = 0; j < bb; j++) {
                        double tkj = t[k * bb + j];
                        for (int l = 0; l < bb; l++) y[off + k * bb + l] += tkj * b[(k * bb + j) * bb + l];
                    }
            }
        });
        return y;
    }
}
