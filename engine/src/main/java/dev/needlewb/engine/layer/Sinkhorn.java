package dev.needlewb.engine.layer;

/**
 * The mHC residual mixing matrix: 20 Sinkhorn iterations on an {@code n x n} logit matrix A
 * (normalize rows, then columns, in log space), then {@code P = exp(A)} (SPEC section 2).
 *
 * <p>The fast path runs in the positive domain: {@code K = exp(A - max A)}, then 20 times divide
 * every row by its sum and every column by its sum, which is the same map as subtracting the
 * log-sum-exps. Each row sum is {@code (k0 + k1) + (k2 + k3)} and each column sum pairs rows 0-1 and
 * 2-3 the same way: the order a 16-lane vector with two lane swaps per sum gave, kept as scalar code
 * so it is the same at every vector width (16 entries, 27 times a step: no vector needed).
 * <b>Criterion</b>: it is used when {@code max(A) - min(A) <= 40}. Then the row and column scale factors of any iterate differ by at most {@code e^40}, so every entry stays in
 * {@code [e^-80 / n, 1]} ({@code e^-80 ~ 1.8e-35}, above the float32 normal minimum 1.2e-38):
 * nothing under- or overflows. A wider range, or a lane count other than 4, uses the log-space
 * iteration (max-shifted log-sum-exp in float64).
 */
public final class Sinkhorn {
    public static final int ITERATIONS = 20;
    /** Largest {@code max(A) - min(A)} the positive domain accepts. */
    public static final float POSITIVE_RANGE = 40f;

    private Sinkhorn() {}

    /** True when {@link #apply} takes the log-space path for this matrix. */
    public static boolean usesLogSpace(float[] a, int n) {
        if (n != 4) return true;
        float max = Float.NEGATIVE_INFINITY, min = Float.POSITIVE_INFINITY;
        for (int i = 0; i < n * n; i++) {
            max = Math.max(max, a[i]);
            min = Math.min(min, a[i]);
        }
        return !(max - min <= POSITIVE_RANGE);
    }

    /** Per calling thread: the log-space iteration's float64 matrix (a step allocates nothing). */
    private static final ThreadLocal<double[]> LOGITS = ThreadLocal.withInitial(() -> new double[0]);

    /** {@code out[n*n] = sinkhorn(a[n*n])}, row-major. */
    public static void apply(float[] a, int n, float[] out) {
        apply(a, n, out, 0);
    }

    /** {@code out[outOff, outOff + n*n) = sinkhorn(a[n*n])}, row-major. */
    public static void apply(float[] a, int n, float[] out, int outOff) {
        if (usesLogSpace(a, n)) logSpace(a, n, out, outOff);
        else positive4(a, out, outOff);
    }

    private static void positive4(float[] a, float[] k, int o) {
        float max = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < 16; i++) max = Math.max(max, a[i]);
        for (int i = 0; i < 16; i++) k[o + i] = (float) Math.exp(a[i] - max);
        for (int it = 0; it < ITERATIONS; it++) {
            for (int r = o; r < o + 16; r += 4) {
                float sum = (k[r] + k[r + 1]) + (k[r + 2] + k[r + 3]);
                for (int c = r; c < r + 4; c++) k[c] /= sum;
            }
            for (int c = o; c < o + 4; c++) {
                float sum = (k[c] + k[c + 4]) + (k[c + 8] + k[c + 12]);
                for (int r = c; r < o + 16; r += 4) k[r] /= sum;
            }
        }
    }

    static void logSpace(float[] a, int n, float[] out, int outOff) {
        double[] l = LOGITS.get();
        if (l.length < n * n) LOGITS.set(l = new double[n * n]);
        for (int i = 0; i < n * n; i++) l[i] = a[i];
        for (int it = 0; it < ITERATIONS; it++) {
            for (int r = 0; r < n; r++) subtractLogSumExp(l, r * n, 1, n);
            for (int c = 0; c < n; c++) subtractLogSumExp(l, c, n, n);
        }
        for (int i = 0; i < n * n; i++) out[outOff + i] = (float) Math.exp(l[i]);
    }

    private static void subtractLogSumExp(double[] l, int start, int stride, int n) {
        double max = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) max = Math.max(max, l[start + i * stride]);
        double sum = 0;
        for (int i = 0; i < n; i++) sum += Math.exp(l[start + i * stride] - max);
        double lse = max + Math.log(sum);
        for (int i = 0; i < n; i++) l[start + i * stride] -= lse;
    }
}
