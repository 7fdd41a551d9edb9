package dev.needlewb.reports.parity;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One engine against a baseline, every shared tap in execution order: the baseline is either the
 * reference run that fits the engine ({@code baselineEngine} null, judged by {@code profile};
 * {@code weights} names the reference's weights when they are not the engine's model) or another
 * engine ({@code baselineEngine} set: the error this engine adds on top of that one, reported but
 * not judged, {@code profile} null).
 */
public record Comparison(EngineMode engine, String baseline, String weights, EngineMode baselineEngine, String profile, int positions,
                         List<TapResult> taps, double[] lastBaselineLogits, float[] lastEngineLogits) {

    /** True when the baseline is the reference. */
    public boolean againstReference() {
        return baselineEngine == null;
    }

    /** A short name: "int8 vs reference", "exact vs reference on ckpt.pkl", "int8 vs exact". */
    public String label() {
        if (baselineEngine != null) return engine.label() + " vs " + baselineEngine.label();
        return engine.label() + " vs reference" + (weights == null ? "" : " on " + java.nio.file.Path.of(weights).getFileName());
    }

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

    /** The largest relative L2 of any site per layer: one error-growth curve for the whole comparison. */
    public double[] worstRelL2ByLayer() {
        double[] worst = new double[layers()];
        java.util.Arrays.fill(worst, Double.NaN);
        for (TapResult t : taps) {
            if (t.layer() < 0) continue;
            double v = t.metrics().relL2();
            if (Double.isNaN(worst[t.layer()]) || v > worst[t.layer()]) worst[t.layer()] = v;
        }
        return worst;
    }

    /** The tap with the largest relative L2, the logits left out unless no other tap was recorded. */
    public TapResult worstTap() {
        return taps.stream().filter(t -> t.logits() == null).max((a, b) -> Double.compare(a.metrics().relL2(), b.metrics().relL2()))
                .orElse(logits());
    }

    public TapResult logits() {
        return taps.stream().filter(t -> t.logits() != null).findFirst().orElse(null);
    }
}
