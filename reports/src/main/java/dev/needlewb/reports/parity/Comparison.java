package dev.needlewb.reports.parity;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One engine against its reference run: every shared tap in execution order, judged by one profile. */
public record Comparison(EngineMode engine, String profile, int positions, List<TapResult> taps,
                         double[] lastReferenceLogits, float[] lastEngineLogits) {

    public boolean passed() {
        return taps.stream().allMatch(TapResult::passed);
    }

    /** The first tap in execution order outside its tolerance, or null. */
    public TapResult firstFailure() {
        return taps.stream().filter(t -> !t.passed()).findFirst().orElse(null);
    }

    public int layers() {
        return taps.stream().mapToInt(TapResult::layer).max().orElse(-1) + 1;
    }

    /** Relative L2 per layer for each per-layer site, in first-seen order; NaN where a layer lacks the site. */
    public Map<String, double[]> relL2ByLayer() {
        Map<String, double[]> out = new LinkedHashMap<>();
        int layers = layers();
        for (TapResult t : taps) {
            if (t.layer() < 0) continue;
            double[] row = out.computeIfAbsent(t.site(), s -> {
                double[] fresh = new double[layers];
                java.util.Arrays.fill(fresh, Double.NaN);
                return fresh;
            });
            row[t.layer()] = t.metrics().relL2();
        }
        return out;
    }

    public TapResult logits() {
        return taps.stream().filter(t -> t.logits() != null).findFirst().orElse(null);
    }
}
