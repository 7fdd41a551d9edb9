package dev.needlewb.reports.parity;

import java.util.Arrays;

/**
 * The distribution-level agreement of logits [T, V] over positions: top-1 agreement (fraction of
 * positions with the same argmax), top-5 overlap (mean fraction of the reference's five most
 * likely tokens that are also among the engine's five), mean and largest KL(reference || engine)
 * of the softmax in nats, and the largest difference of any token's probability.
 *
 * <p>{@code nearTies} counts the positions whose argmax differs between two tokens the reference
 * itself nearly ties: their reference logits differ by less than {@code tieMargin} times the RMS
 * of the reference's logit row. A profile sets the margin from its own rel-L2 limit on the logits
 * ({@link #TIE_FACTOR}): an error the profile allows can swap such a pair, so the swap says nothing
 * the rel-L2 limit does not already judge. {@link #top1} counts every flip; the profile's top-1
 * limit judges {@link #top1BeyondTies}.
 */
public record LogitMetrics(double top1, double top5, double meanKl, double maxKl, double maxProbDiff, int nearTies, int positions) {
    private static final int TOP = 5;
    /**
     * Two logits, each off by the per-logit RMS error a rel-L2 limit allows (limit times the row's
     * RMS), can move against each other by twice that.
     */
    public static final double TIE_FACTOR = 2;

    /** Without a tie margin: every flip counts. */
    public static LogitMetrics of(double[] reference, float[] engine, int positions, int vocab) {
        return of(reference, engine, positions, vocab, 0);
    }

    /** {@code tieMargin}: a flip between tokens whose reference logits differ by less than this times the row's RMS is a near tie. */
    public static LogitMetrics of(double[] reference, float[] engine, int positions, int vocab, double tieMargin) {
        if (reference.length != (long) positions * vocab || engine.length != reference.length) {
            throw new IllegalArgumentException("logits are not [" + positions + ", " + vocab + "] on both sides");
        }
        int agree = 0, ties = 0;
        double overlap = 0, klSum = 0, klMax = 0, probDiff = 0;
        double[] p = new double[vocab], q = new double[vocab];
        for (int t = 0; t < positions; t++) {
            int base = t * vocab;
            for (int i = 0; i < vocab; i++) {
                p[i] = reference[base + i];
                q[i] = engine[base + i];
            }
            int[] topRef = top(p), topEng = top(q);
            if (topRef[0] == topEng[0]) agree++;
            else if (p[topRef[0]] - p[topEng[0]] < tieMargin * rms(p)) ties++;
            overlap += common(topRef, topEng) / (double) TOP;
            softmax(p);
            softmax(q);
            double kl = 0;
            for (int i = 0; i < vocab; i++) {
                if (p[i] > 0) kl += p[i] * (Math.log(p[i]) - Math.log(Math.max(q[i], Double.MIN_NORMAL)));
                probDiff = Math.max(probDiff, Math.abs(p[i] - q[i]));
            }
            klSum += kl;
            klMax = Math.max(klMax, kl);
        }
        return new LogitMetrics(agree / (double) positions, overlap / positions, klSum / positions, klMax, probDiff, ties, positions);
    }

    /** Top-1 agreement counting near ties as agreeing. */
    public double top1BeyondTies() {
        return positions == 0 ? top1 : top1 + nearTies / (double) positions;
    }

    private static double rms(double[] v) {
        double sum = 0;
        for (double x : v) sum += x * x;
        return Math.sqrt(sum / v.length);
    }

    /** Indices of the largest values, largest first (ties: lower index first). */
    private static int[] top(double[] v) {
        int k = Math.min(TOP, v.length);
        int[] best = new int[k];
        Arrays.fill(best, -1);
        for (int i = 0; i < v.length; i++) {
            for (int j = 0; j < k; j++) {
                if (best[j] < 0 || v[i] > v[best[j]]) {
                    System.arraycopy(best, j, best, j + 1, k - j - 1);
                    best[j] = i;
                    break;
                }
            }
        }
        return best;
    }

    private static int common(int[] a, int[] b) {
        int n = 0;
        for (int x : a) for (int y : b) if (x == y) n++;
        return n;
    }

    private static void softmax(double[] v) {
        double max = Double.NEGATIVE_INFINITY, sum = 0;
        for (double x : v) max = Math.max(max, x);
        for (int i = 0; i < v.length; i++) sum += v[i] = Math.exp(v[i] - max);
        for (int i = 0; i < v.length; i++) v[i] /= sum;
    }
}
