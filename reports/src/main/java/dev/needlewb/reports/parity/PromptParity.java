package dev.needlewb.reports.parity;

import java.io.Serializable;
import java.util.List;

/**
 * One engine against its reference on one prompt, reduced to what a sweep's row shows: small enough
 * to travel back from wherever the prompt ran.
 *
 * @param judgedTaps   taps a rule of the profile judged
 * @param worstTap     the tap with the largest relative L2 (the logits only when no other tap was recorded), as the parity report's summary picks it
 * @param firstFailure the first tap in execution order out of tolerance, null when every judged tap is within it
 */
public record PromptParity(String profile, int positions, boolean passed, int judgedTaps, String worstTap, double worstRelL2,
                           Failure firstFailure, double logitsRelL2, double top1, double meanKl, double maxProbDiff) implements Serializable {

    /** A tap out of tolerance: its name, operation and the limits it broke. */
    public record Failure(String tap, String operation, List<String> violations) implements Serializable {
        public Failure {
            violations = List.copyOf(violations);
        }
    }

    /** {@code c} must be a judged comparison (an engine against the reference). */
    public static PromptParity of(Comparison c) {
        if (!c.againstReference()) throw new IllegalArgumentException("not a comparison against the reference: " + c.label());
        TapResult worst = c.worstTap();
        TapResult first = c.firstFailure();
        TapResult logits = c.logits();
        LogitMetrics l = logits.logits();
        int judged = (int) c.taps().stream().filter(t -> t.rule() != null).count();
        return new PromptParity(c.profile(), c.positions(), c.passed(), judged, worst.name(), worst.metrics().relL2(),
                first == null ? null : new Failure(first.name(), first.operation(), first.violations()),
                logits.metrics().relL2(), l.top1(), l.meanKl(), l.maxProbDiff());
    }
}
