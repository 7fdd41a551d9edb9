package dev.needlewb.engine.layer;

import dev.needlewb.engine.kernel.Lanes;

/**
 * Needle 3's MLP (upstream {@code HadamardMLP}; the name is historical): for the normalised input x [d]
 * and n = hada_n,
 * <pre>
 *   cond = 1 + softmax(x @ cond_v) @ cond_u                    [n]
 *   z1   = F1(d1 * pad(x))[p1]
 *   z2   = F2(silu(d2 * cond * z1 + b2))[p2]
 *   z3   = F3(d3 * z2)
 *   out  = (d4 * z3)[0:d]
 * </pre>
 * F views z as the ba x bb matrix Z[i][j] = z[i*bb + j] and gives Y = A^T Z B with the stage's shared
 * factors (A [ba, ba], B [bb, bb], i.e. {@code z @ kron(A, B)}), or with block-untied ones
 * T[k][j] = sum_i Z[i][j] A[j][i][k], Y[k][l] = sum_j T[k][j] B[k][j][l]. Every factor is the file's FP16
 * values widened to float32, used as stored (never transposed), small and dense: 3 (ba^2 + bb^2) floats a
 * layer shared, bb ba^2 + ba bb^2 untied. A stage costs n (ba + bb) multiply-adds, each summed in index order
 * in float32; the two inner loops run over contiguous rows.
 */
public final class KroneckerMlp implements Mlp {
    /** Upstream's HADA_COND_RANK. */
    public static final int RANK = 8;

    /** One stage's factors: shared {@code a [ba, ba], b [bb, bb]}, or untied {@code a [bb, ba, ba], b [ba, bb, bb]}, row-major. */
    public record Factors(float[] a, float[] b) {}

    private final int d, n, ba, bb;
    private final boolean untied;
    private final float[] condV, condU, d1, d2, b2, d3, d4;
    private final Factors[] stages;
    private final int[] p1, p2;

    /**
     * The MLP of width {@code d} over {@code n = ba * bb} ({@link #blockA}): {@code condV [d, 8]},
     * {@code condU [8, n]}, the diagonals and bias (length n), three stages' factors and the permutations.
     */
    public KroneckerMlp(int d, int n, boolean untied, float[] condV, float[] condU, float[] d1, float[] d2, float[] b2, float[] d3,
            float[] d4, Factors[] stages, int[] p1, int[] p2) {
        if (n < d || Integer.bitCount(n) != 1) throw new IllegalArgumentException("Kronecker length " + n + " for width " + d);
        this.d = d;
        this.n = n;
        this.ba = blockA(n);
        this.bb = n / ba;
        this.untied = untied;
        this.condV = condV;
        this.condU = condU;
        this.d1 = d1;
        this.d2 = d2;
        this.b2 = b2;
        this.d3 = d3;
        this.d4 = d4;
        this.stages = stages.clone();
        this.p1 = p1;
        this.p2 = p2;
    }

    /** Upstream {@code _hada_blocks}: {@code ba = 1 << (bit_length(n - 1) / 2)}, {@code bb = n / ba}. */
    public static int blockA(int n) {
        int bitLength = 32 - Integer.numberOfLeadingZeros(n - 1);
        return 1 << (bitLength / 2);
    }

    @Override
    public int scratchLength() {
        return 3 * n + RANK;
    }

    @Override
    public void apply(float[] x, int xOff, float[] out, int outOff, float[] scratch, Arithmetic.Exponential exp) {
        int z = 0, y = n, t = 2 * n, c = 3 * n;
        conditioner(x, xOff, scratch, c);
        for (int i = 0; i < d; i++) scratch[z + i] = d1[i] * x[xOff + i];
        java.util.Arrays.fill(scratch, z + d, z + n, 0f);
        stage(0, scratch, z, y, t);
        for (int m = 0; m < n; m++) scratch[z + m] = scratch[y + p1[m]];
        for (int m = 0; m < n; m++) {
            float cond = 1f;
            for (int r = 0; r < RANK; r++) cond += scratch[c + r] * condU[r * n + m];
            scratch[z + m] = d2[m] * cond * scratch[z + m] + b2[m];
        }
        silu(scratch, z, exp);
        stage(1, scratch, z, y, t);
        for (int m = 0; m < n; m++) scratch[z + m] = scratch[y + p2[m]] * d3[m];
        stage(2, scratch, z, y, t);
        for (int i = 0; i < d; i++) out[outOff + i] = d4[i] * scratch[y + i];
    }

    /** {@code softmax(x @ cond_v)} into {@code s[at, + 8)}: float32 products, the softmax's exponentials rounded to float32, its sum in double. */
    private void conditioner(float[] x, int xOff, float[] s, int at) {
        java.util.Arrays.fill(s, at, at + RANK, 0f);
        for (int j = 0; j < d; j++) {
            float xj = x[xOff + j];
            for (int r = 0; r < RANK; r++) s[at + r] += xj * condV[j * RANK + r];
        }
        double max = Double.NEGATIVE_INFINITY, sum = 0;
        for (int r = 0; r < RANK; r++) max = Math.max(max, s[at + r]);
        for (int r = 0; r < RANK; r++) sum += s[at + r] = (float) Math.exp(s[at + r] - max);
        for (int r = 0; r < RANK; r++) s[at + r] = (float) (s[at + r] / sum);
    }

    private void silu(float[] s, int at, Arithmetic.Exponential exp) {
        if (exp == Arithmetic.Exponential.POLYNOMIAL && n % Lanes.LOGICAL == 0) {
            VectorExp.timesSigmoid(s, at, s, at, s, at, n);
            return;
        }
        for (int m = at; m < at + n; m++) s[m] = s[m] / (1f + (float) Math.exp(-s[m]));
    }

    /** {@code s[y, + n) = F_stage(s[z, + n))}, {@code s[t, + n)} scratch for {@code T = A^T Z}. */
    private void stage(int stage, float[] s, int z, int y, int t) {
        float[] a = stages[stage].a(), b = stages[stage].b();
        java.util.Arrays.fill(s, t, t + n, 0f);
        java.util.Arrays.fill(s, y, y + n, 0f);
        if (untied) {
            for (int i = 0; i < ba; i++) {
                for (int j = 0; j < bb; j++) {
                    float zij = s[z + i * bb + j];
                    int at = (j * ba + i) * ba;
                    for (int k = 0; k < ba; k++) s[t + k * bb + j] += zij * a[at + k];
                }
            }
            for (int k = 0; k < ba; k++) {
                for (int j = 0; j < bb; j++) {
                    float tkj = s[t + k * bb + j];
                    int at = (k * bb + j) * bb;
                    for (int l = 0; l < bb; l++) s[y + k * bb + l] += tkj * b[at + l];
                }
            }
            return;
        }
        for (int i = 0; i < ba; i++) {
            for (int k = 0; k < ba; k++) {
                float aik = a[i * ba + k];
                for (int j = 0; j < bb; j++) s[t + k * bb + j] += aik * s[z + i * bb + j];
            }
        }
        for (int k = 0; k < ba; k++) {
            for (int j = 0; j < bb; j++) {
                float tkj = s[t + k * bb + j];
                for (int l = 0; l < bb; l++) s[y + k * bb + l] += tkj * b[j * bb + l];
            }
        }
    }
}
