package dev.needlewb.reference;

/**
 * The mHC coefficients of one layer for every position: {@code hpre} [count, n], {@code hpost}
 * [count, n] and the Sinkhorn-normalised residual mixing {@code residual} [count, n, n], all from
 * {@code rms_unit} of the flattened lanes. The selected lane {@code l mod n} gets the +4 / 0 offsets,
 * the others -4 / -4.
 */
record LaneMixing(double[] hpre, double[] hpost, double[] residual) {
    /** A change of the normalised stream {@code nx} [count, n*d] before its projections (Needle 3 rounds it to A8). */
    @FunctionalInterface
    interface StreamRounding {
        void apply(double[] nx, int count, int width);
    }

    /** The coefficients of lanes [count, n, d] for selected lane {@code selected}; {@code rounding} may be null. */
    static LaneMixing compute(double[] lanes, int count, int n, int d, int selected, MhcWeights m,
                              StreamRounding rounding) {
        int width = n * d;
        double[] nx = new double[lanes.length];
        RowChunks.forEach(count, (from, to) -> {
            for (int i = from; i < to; i++) Norms.rmsUnit(lanes, i * width, width, nx, i * width);
        });
        if (rounding != null) rounding.apply(nx, count, width);
        double[] proj = m.phi().apply(nx, count);
        int cols = 2 * n + n * n;
        double[] hpre = new double[count * n];
        double[] hpost = new double[count * n];
        double[] residual = new double[count * n * n];
        RowChunks.forEach(count, (from, to) -> {
            double[] logits = new double[n * n];
            for (int i = from; i < to; i++) {
                int row = i * cols;
                for (int a = 0; a < n; a++) {
                    double preOff = a == selected ? 4 : -4;
                    double postOff = a == selected ? 0 : -4;
                    hpre[i * n + a] = Norms.sigmoid(m.aPre() * proj[row + a] + m.bPre()[a] + preOff);
                    hpost[i * n + a] = 2 * Norms.sigmoid(m.aPost() * proj[row + n + a] + m.bPost()[a] + postOff);
                }
                for (int j = 0; j < n * n; j++) logits[j] = m.aRes() * proj[row + 2 * n + j] + m.bRes()[j];
                sinkhorn(logits, n);
                System.arraycopy(logits, 0, residual, i * n * n, n * n);
            }
        });
        return new LaneMixing(hpre, hpost, residual);
    }

    /** The Block input {@code u = sum_i hpre[i] * X[i]} [count, d] of lanes X [count, n, d]. */
    double[] readIn(double[] lanes, int count, int d) {
        int n = hpre.length / count;
        double[] u = new double[count * d];
        RowChunks.forEach(count, (from, to) -> {
            for (int i = from; i < to; i++)
                for (int lane = 0; lane < n; lane++) {
                    double h = hpre[i * n + lane];
                    int in = (i * n + lane) * d;
                    for (int c = 0; c < d; c++) u[i * d + c] += h * lanes[in + c];
                }
        });
        return u;
    }

    /** The next lanes {@code X' = P @ X + hpost[:, None] * (block - u)[None, :]} per position. */
    double[] writeBack(double[] lanes, double[] block, double[] u, int count, int d) {
        int n = hpre.length / count;
        double[] next = new double[lanes.length];
        RowChunks.forEach(count, (from, to) -> {
            for (int i = from; i < to; i++) {
                for (int a = 0; a < n; a++) {
                    int out = (i * n + a) * d;
                    for (int b = 0; b < n; b++) {
                        double p = residual[(i * n + a) * n + b];
                        int in = (i * n + b) * d;
                        for (int c = 0; c < d; c++) next[out + c] += p * lanes[in + c];
                    }
                    double h = hpost[i * n + a];
                    for (int c = 0; c < d; c++) next[out + c] += h * (block[i * d + c] - u[i * d + c]);
                }
            }
        });
        return next;
    }

    /** The mean over the n lanes of lanes [count, n, d]: the hidden state after a layer, [count, d]. */
    static double[] laneMean(double[] lanes, int count, int n, int d) {
        double[] mean = new double[count * d];
        for (int i = 0; i < count; i++) {
            for (int c = 0; c < d; c++) {
                double sum = 0;
                for (int lane = 0; lane < n; lane++) sum += lanes[(i * n + lane) * d + c];
                mean[i * d + c] = sum / n;
            }
        }
        return mean;
    }

    /** In place: {@link Trunk#SINKHORN_ITERATIONS} log-space row-then-column normalisations, then exp. */
    static void sinkhorn(double[] a, int n) {
        double[] v = new double[n];
        for (int it = 0; it < Trunk.SINKHORN_ITERATIONS; it++) {
            for (int r = 0; r < n; r++) {
                for (int c = 0; c < n; c++) v[c] = a[r * n + c];
                double lse = logSumExp(v);
                for (int c = 0; c < n; c++) a[r * n + c] -= lse;
            }
            for (int c = 0; c < n; c++) {
                for (int r = 0; r < n; r++) v[r] = a[r * n + c];
                double lse = logSumExp(v);
                for (int r = 0; r < n; r++) a[r * n + c] -= lse;
            }
        }
        for (int i = 0; i < n * n; i++) a[i] = Math.exp(a[i]);
    }

    /** {@code max + log(sum(exp(v - max)))}, as jax.nn.logsumexp computes it. */
    private static double logSumExp(double[] v) {
        double max = Double.NEGATIVE_INFINITY;
        for (double x : v) max = Math.max(max, x);
        double sum = 0;
        for (double x : v) sum += Math.exp(x - max);
        return Math.log(sum) + max;
    }
}
