package dev.needlewb.reference.v3;

import dev.needlewb.reference.Norms;
import dev.needlewb.reference.Vec;

/**
 * Upstream Needle 3 {@code probe_pool}: for each cell row r (the embedding, then each layer) each
 * of its k probes attends over the kept positions, {@code softmax_t(cell[t][r] . probe / sqrt(d))};
 * the pooled vector is {@code rms_unit}-normalised and scaled by its gain. Each of the q queries then
 * attends over those (L+1)*k vectors, {@code softmax_m(R[m] . query / sqrt(d) + row_bias)}, and the
 * q pooled vectors are concatenated [q * d], query-major.
 */
final class ProbePooling {
    private ProbePooling() {}

    /**
     * @param cells  [T][L+1][d]
     * @param keep   the positions that count (not PAD); at least one
     * @param probes the probes [L+1, k, d] (fake-quantized in quant mode), likewise {@code query} [q, d]
     */
    static double[] pool(double[][][] cells, boolean[] keep, ProbeHeadWeights h, double[] probes, double[] query) {
        int t = cells.length;
        int rows = cells[0].length;
        int d = cells[0][0].length;
        int k = h.probes();
        int q = h.queries();
        double scale = Math.sqrt(d);
        double[] pooled = new double[rows * k * d];
        double[] scores = new double[t];
        for (int r = 0; r < rows; r++) {
            for (int j = 0; j < k; j++) {
                int m = r * k + j;
                double max = Double.NEGATIVE_INFINITY;
                for (int i = 0; i < t; i++) {
                    scores[i] = keep[i] ? Vec.dot(cells[i][r], 0, probes, m * d, d) / scale : Double.NEGATIVE_INFINITY;
                    max = Math.max(max, scores[i]);
                }
                softmax(scores, max);
                for (int i = 0; i < t; i++) {
                    if (scores[i] != 0) Vec.axpy(scores[i], cells[i][r], 0, pooled, m * d, d);
                }
                Norms.rmsUnit(pooled, m * d, d, pooled, m * d);
                for (int c = 0; c < d; c++) pooled[m * d + c] *= h.gain()[m];
            }
        }
        int cellsPooled = rows * k;
        double[] out = new double[q * d];
        double[] weights = new double[cellsPooled];
        for (int qi = 0; qi < q; qi++) {
            double max = Double.NEGATIVE_INFINITY;
            for (int m = 0; m < cellsPooled; m++) {
                weights[m] = Vec.dot(pooled, m * d, query, qi * d, d) / scale + h.rowBias()[qi * cellsPooled + m];
                max = Math.max(max, weights[m]);
            }
            softmax(weights, max);
            for (int m = 0; m < cellsPooled; m++) Vec.axpy(weights[m], pooled, m * d, out, qi * d, d);
        }
        return out;
    }

    /** In place: {@code exp(v - max) / sum}. */
    private static void softmax(double[] v, double max) {
        double sum = 0;
        for (int i = 0; i < v.length; i++) {
            v[i] = Math.exp(v[i] - max);
            sum += v[i];
        }
        for (int i = 0; i < v.length; i++) v[i] /= sum;
    }
}
