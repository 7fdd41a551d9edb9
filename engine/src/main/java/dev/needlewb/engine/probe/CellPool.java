package dev.needlewb.engine.probe;

import dev.needlewb.converter.v3.V3ProbeHead;
import dev.needlewb.engine.kernel.Activation;
import dev.needlewb.engine.kernel.NumericMode;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Upstream Needle 3's {@code probe_pool} over a sequence's hidden cells as the engine computes them, kept
 * as the cells go by instead of storing them: for every head, cell row {@code r} (0 the scaled embedding,
 * {@code l + 1} the lane mean after layer {@code l}) and probe {@code j}, the running softmax over positions
 * of {@code cell . probe / sqrt(d)} (its maximum, the sum of {@code exp(score - max)} and the weighted sum of
 * the cells, rescaled when the maximum grows, in float64). That is {@code (L+1) * k * (d + 2)} doubles a head
 * whatever the length, against {@code (L+1) * d} floats a position for the cells themselves. The scores are
 * the packed probe matrix times the cell in the session's numeric mode (int8: the cell rounded per CQ group,
 * as every packed product's input is). {@link #outputs} finishes the pool (rms_unit, gain, the queries'
 * softmax over the {@code (L+1) * k} pooled vectors with the row bias) and projects it, bias added.
 * Not thread-safe.
 */
public final class CellPool {
    /** Upstream's pad_token_id (the header does not store one; Needle 3's config default): not pooled, as upstream's keep mask says. */
    public static final int PAD_ID = 0;
    private final List<ProbeHeadWeights> heads;
    private final int d;
    private final NumericMode mode;
    private final double scale;
    /** Per head: the running maximum and sum of each pooled vector [(L+1) k], and the weighted cell sums [(L+1) k, d]. */
    private final double[][] max, sum, acc;
    private final Activation[] probeInput;
    private final float[] scores;

    public CellPool(List<ProbeHeadWeights> heads, int d, NumericMode mode) {
        if (heads.isEmpty()) throw new IllegalArgumentException("no probe heads to pool for");
        this.heads = List.copyOf(heads);
        this.d = d;
        this.mode = mode;
        this.scale = Math.sqrt(d);
        int n = heads.size();
        max = new double[n][];
        sum = new double[n][];
        acc = new double[n][];
        probeInput = new Activation[n];
        int widest = 0;
        for (int h = 0; h < n; h++) {
            ProbeHeadWeights w = heads.get(h);
            max[h] = new double[w.pooledCount()];
            sum[h] = new double[w.pooledCount()];
            acc[h] = new double[w.pooledCount() * d];
            probeInput[h] = w.probes()[0].newActivation(mode);
            widest = Math.max(widest, w.probesPerRow());
        }
        scores = new float[widest];
        clear();
    }

    /** Forgets every position (a session starting a new sequence). */
    public void clear() {
        for (int h = 0; h < heads.size(); h++) {
            Arrays.fill(max[h], Double.NEGATIVE_INFINITY);
            Arrays.fill(sum[h], 0);
            Arrays.fill(acc[h], 0);
        }
    }

    /** The number of cell rows, {@code L + 1}. */
    public int cellRows() {
        return heads.getFirst().probes().length;
    }

    /** Pools one position's cell of row {@code row}, {@code cell[off, off + d)} (a PAD position is not pooled: the caller skips it). */
    public void add(int row, float[] cell, int off) {
        for (int h = 0; h < heads.size(); h++) {
            ProbeHeadWeights w = heads.get(h);
            int k = w.probesPerRow();
            probeInput[h].prepare(cell, off);
            w.probes()[row].matvec(probeInput[h], scores, 0);
            for (int j = 0; j < k; j++) accumulate(h, row * k + j, scores[j] / scale, cell, off);
        }
    }

    /** The online softmax step of pooled vector {@code m}: {@code acc = acc * e^(old max - max) + e^(score - max) cell}. */
    private void accumulate(int h, int m, double score, float[] cell, int off) {
        double[] a = acc[h];
        int at = m * d;
        double weight;
        if (score > max[h][m]) {
            double shrink = Math.exp(max[h][m] - score);
            sum[h][m] *= shrink;
            for (int c = 0; c < d; c++) a[at + c] *= shrink;
            max[h][m] = score;
            weight = 1;
        } else {
            weight = Math.exp(score - max[h][m]);
        }
        sum[h][m] += weight;
        for (int c = 0; c < d; c++) a[at + c] += weight * cell[off + c];
    }

    /** This pool's state becomes {@code other}'s (a prefix's pool restored); both pool for the same heads. */
    public void copyFrom(CellPool other) {
        if (other.heads != heads && !other.heads.equals(heads)) throw new IllegalArgumentException("a pool of other heads");
        for (int h = 0; h < heads.size(); h++) {
            System.arraycopy(other.max[h], 0, max[h], 0, max[h].length);
            System.arraycopy(other.sum[h], 0, sum[h], 0, sum[h].length);
            System.arraycopy(other.acc[h], 0, acc[h], 0, acc[h].length);
        }
    }

    /** A pool of the same heads and mode holding this one's positions. */
    public CellPool copy() {
        CellPool c = new CellPool(heads, d, mode);
        c.copyFrom(this);
        return c;
    }

    /**
     * Every head's projection over the positions pooled so far (raw: the confidence logit before its
     * sigmoid, the router's 3 logits, the embedding head's projection before its normalisation).
     *
     * @throws IllegalStateException when no position has been pooled
     */
    public ProbeOutputs outputs() {
        Map<V3ProbeHead, double[]> out = new EnumMap<>(V3ProbeHead.class);
        for (int h = 0; h < heads.size(); h++) out.put(heads.get(h).kind(), project(h));
        return new ProbeOutputs(out);
    }

    private double[] project(int h) {
        ProbeHeadWeights w = heads.get(h);
        int count = w.pooledCount(), q = w.queries();
        if (sum[h][0] == 0) throw new IllegalStateException("the probe heads have pooled no position yet");
        // R[m] = rms_unit(acc / sum) * gain
        float[] pooled = new float[count * d];
        double[] unit = new double[d];
        for (int m = 0; m < count; m++) {
            double ss = 0;
            for (int c = 0; c < d; c++) {
                unit[c] = acc[h][m * d + c] / sum[h][m];
                ss += unit[c] * unit[c];
            }
            double inv = 1.0 / Math.sqrt(ss / d + RMS_EPS);
            for (int c = 0; c < d; c++) pooled[m * d + c] = (float) (unit[c] * inv * w.gain()[m]);
        }
        // U[qi][m] = R[m] . Q[qi] / sqrt(d) + row_bias[qi][m]: one packed product per pooled vector
        double[][] logits = new double[q][count];
        Activation queryInput = w.query().newActivation(mode);
        float[] dots = new float[q];
        for (int m = 0; m < count; m++) {
            queryInput.prepare(pooled, m * d);
            w.query().matvec(queryInput, dots, 0);
            for (int qi = 0; qi < q; qi++) logits[qi][m] = dots[qi] / scale + w.rowBias()[qi * count + m];
        }
        // pooled_flat[qi] = sum_m softmax_m(U[qi]) R[m], query-major
        float[] flat = new float[q * d];
        for (int qi = 0; qi < q; qi++) {
            double[] weights = softmax(logits[qi]);
            double[] row = new double[d];
            for (int m = 0; m < count; m++) {
                for (int c = 0; c < d; c++) row[c] += weights[m] * pooled[m * d + c];
            }
            for (int c = 0; c < d; c++) flat[qi * d + c] = (float) row[c];
        }
        Activation projInput = w.proj().newActivation(mode);
        projInput.prepare(flat, 0);
        float[] projected = new float[w.outputs()];
        w.proj().matvec(projInput, projected, 0);
        double[] out = new double[projected.length];
        for (int o = 0; o < out.length; o++) out[o] = projected[o] + (double) w.bias()[o];
        return out;
    }

    /** Upstream's rms_unit epsilon (the norms' 1e-6). */
    private static final double RMS_EPS = 1e-6;

    private static double[] softmax(double[] v) {
        double max = Double.NEGATIVE_INFINITY;
        for (double x : v) max = Math.max(max, x);
        double[] out = new double[v.length];
        double total = 0;
        for (int i = 0; i < v.length; i++) total += out[i] = Math.exp(v[i] - max);
        for (int i = 0; i < v.length; i++) out[i] /= total;
        return out;
    }
}
