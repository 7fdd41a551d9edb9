package dev.needlewb.reports.parity;

import dev.needlewb.converter.WorkbenchException;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.EngineOptions;
import dev.needlewb.reference.ForwardOptions;
import dev.needlewb.reference.ReferenceModel;
import dev.needlewb.reference.Taps;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Runs the reference (full sequence, every tap) and the engine (token by token, every tap) on the
 * same tokens and compares each tap both record.
 */
public final class Parity {
    private Parity() {}

    /** {@code window} 0 means none; {@code sinks} leading positions stay visible under it. */
    public static Comparison compare(ReferenceModel reference, Path cact, int[] tokens, EngineMode mode,
                                     int window, int sinks, ToleranceProfile profile) throws WorkbenchException {
        int positions = tokens.length;
        Taps refTaps = Taps.all();
        ForwardOptions options = mode.referenceOptions().withTaps(refTaps);
        if (window > 0) options = options.withWindow(window, sinks);
        reference.forward(tokens, options);
        Map<String, Taps.Tap> recorded = refTaps.recorded();

        EngineTaps engineTaps = new EngineTaps(recorded.keySet(), positions);
        EngineOptions engineOptions = EngineOptions.exact(positions).withMode(mode.numericMode()).withWindow(window, sinks);
        try (Engine engine = Engine.open(cact, engineOptions)) {
            mode.run(engine, tokens, engineTaps);
        }

        int vocab = reference.geometry().vocab();
        List<TapResult> results = new ArrayList<>();
        double[] lastRef = null;
        float[] lastEng = null;
        for (Taps.Tap tap : recorded.values()) {
            float[] got = engineTaps.get(tap.name());
            if (got == null) continue;
            TapMetrics metrics = TapMetrics.of(tap.values(), got);
            LogitMetrics logits = null;
            if (tap.name().equals("logits")) {
                logits = LogitMetrics.of(tap.values(), got, positions, vocab);
                lastRef = Arrays.copyOfRange(tap.values(), (positions - 1) * vocab, positions * vocab);
                lastEng = Arrays.copyOfRange(got, (positions - 1) * vocab, positions * vocab);
            }
            ToleranceProfile.Rule rule = profile.ruleFor(tap.name());
            List<String> violations = rule == null ? List.of() : rule.limits().violations(metrics, logits);
            results.add(new TapResult(tap.name(), TapSites.layer(tap.name()), TapSites.site(tap.name()),
                    TapSites.operation(tap.name()), tap.shape(), metrics, logits, rule == null ? null : rule.glob(), violations));
        }
        if (lastRef == null) throw new IllegalStateException("the engine or the reference recorded no logits tap");
        return new Comparison(mode, profile.name(), positions, List.copyOf(results), lastRef, lastEng);
    }
}
