package dev.needlewb.reports.parity;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The tolerance one profile rule sets; a null field is not checked. Tap limits apply to every tap;
 * the logit limits (top-1, top-5, KL, probability) apply to the {@code logits} tap only.
 */
public record Limits(
        Double maxAbs, Double maxRms, Double maxRelL2, Double minCosine, Double maxUlps,
        Double minTop1, Double minTop5, Double maxMeanKl, Double maxKl, Double maxProbDiff) {

    /** What the metrics break, one phrase each ("rel_l2 3.1e-06 > 1e-06"); empty when within tolerance. */
    public List<String> violations(TapMetrics m, LogitMetrics logits) {
        List<String> out = new ArrayList<>();
        above(out, "max_abs", m.maxAbs(), maxAbs);
        above(out, "rms", m.rms(), maxRms);
        above(out, "rel_l2", m.relL2(), maxRelL2);
        below(out, "cosine", m.cosine(), minCosine);
        above(out, "max_ulps", m.maxUlps(), maxUlps);
        if (logits != null) {
            below(out, logits.nearTies() == 0 ? "top1" : "top1 (" + logits.nearTies() + " near ties excused)", logits.top1BeyondTies(), minTop1);
            below(out, "top5", logits.top5(), minTop5);
            above(out, "mean_kl", logits.meanKl(), maxMeanKl);
            above(out, "max_kl", logits.maxKl(), maxKl);
            above(out, "max_prob_diff", logits.maxProbDiff(), maxProbDiff);
        }
        return out;
    }

    /** The near-tie margin of the top-1 limit ({@link LogitMetrics}): from the logits' rel-L2 limit, none without one. */
    public double tieMargin() {
        return minTop1 == null || maxRelL2 == null ? 0 : LogitMetrics.TIE_FACTOR * maxRelL2;
    }

    private static void above(List<String> out, String name, double value, Double limit) {
        // NaN fails: a comparison that produced no number is not within tolerance.
        if (limit != null && !(value <= limit)) out.add(String.format(Locale.ROOT, "%s %.3g > %.3g", name, value, limit));
    }

    private static void below(List<String> out, String name, double value, Double limit) {
        if (limit != null && !(value >= limit)) out.add(String.format(Locale.ROOT, "%s %.6g < %.6g", name, value, limit));
    }
}
