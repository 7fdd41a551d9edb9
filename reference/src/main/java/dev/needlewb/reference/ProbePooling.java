package dev.needlewb.reference;

/**
 * Upstream {@code probe_pool}: every probe scores every cell ({@code cell . probe / sqrt(d)}) over
 * all T x (L+1) cells, cells of PAD positions are excluded, softmax, weighted sum; the pooled probes
 * are concatenated [count * d].
 */
final class ProbePooling {
    private ProbePooling() {}

    static double[] pool(double[][][] cells, int[] tokens, ProbeHead head) {
        int t = cells.length;
        int perPosition = cells[0].length;
        int d = cells[0][0].length;
        double scale = Math.sqrt(d);
        double[] pooled = new double[head.count() * d];
        double[] scores = new double[t * perPosition];
        for (int k = 0; k < head.count(); k++) {
            int probe = k * d;
            double max = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < t; i++) {
                for (int l = 0; l < perPosition; l++) {
                    double score = Double.NEGATIVE_INFINITY;
                    if (tokens[i] != ReferenceModel.PAD_ID) {
                        double dot = 0;
                        for (int c = 0; c < d; c++) dot += cells[i][l][c] * head.probes()[probe + c];
                        score = dot / scale;
                    }
                    scores[i * perPosition + l] = score;
                    max = Math.max(max, score);
                }
            }
            double sum = 0;
            for (int c = 0; c < scores.length; c++) {
                scores[c] = Math.exp(scores[c] - max);
                sum += scores[c];
            }
            for (int i = 0; i < t; i++)
                for (int l = 0; l < perPosition; l++) {
                    double weight = scores[i * perPosition + l] / sum;
                    for (int c = 0; c < d; c++) pooled[probe + c] += weight * cells[i][l][c];
                }
        }
        return pooled;
    }
}
