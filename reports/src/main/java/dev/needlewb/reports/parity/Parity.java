package dev.needlewb.reports.parity;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.reference.ForwardOptions;
import dev.needlewb.reference.ReferenceForward;
import dev.needlewb.reference.Taps;
import dev.needlewb.engine.torch.TorchSource;
import dev.needlewb.converter.cact.CactFile;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;

/**
 * Runs the reference (full sequence, every tap) on one or more sets of weights and each engine
 * (token by token, every tap) once on the same tokens; compares every engine with the reference
 * run that fits it, tap by tap under its profile, and every later engine with every earlier one
 * (the error it adds on top, not judged).
 */
public final class Parity {
    private Parity() {}

    /** One tap of a baseline run: its values widened to double. */
    private record BaselineTap(String name, int[] shape, double[] values) {}

    /**
     * One set of weights the reference runs on: the model, what to call its weights in the report
     * (null: the engines' own model) and the profile each engine is held to against it.
     */
    public record ReferenceRun(ReferenceForward model, String weights, Map<EngineMode, ToleranceProfile> profiles) {}

    /**
     * Every engine of {@code engines} (in report order) against every reference run (all engines
     * against the first reference, then against the next), then every engine against every one
     * listed before it. Each engine runs once. {@code window} 0 means none; {@code sinks}
     * leading positions stay visible under it; {@code quant} holds every engine to upstream's
     * quant=True ({@link EngineMode#reference}). {@code torch} opens the torch engine's model (null
     * when {@link EngineMode#TORCH} is not among {@code engines}).
     */
    public static ParityResult run(List<ReferenceRun> references, CactFile cact, TorchSource torch, int[] tokens, int window, int sinks,
                                   List<EngineMode> engines, boolean quant) throws WorkbenchException {
        try (ParityEngines opened = new ParityEngines(cact, torch, window, sinks, tokens.length)) {
            return run(references, cact, opened, tokens, window, sinks, engines, quant);
        }
    }

    /** The same on engines already open on {@code cact} with the same {@code window} and {@code sinks} (a sweep over prompts). */
    public static ParityResult run(List<ReferenceRun> references, CactFile cact, ParityEngines opened, int[] tokens, int window, int sinks,
                                   List<EngineMode> engines, boolean quant) throws WorkbenchException {
        Map<EngineMode, EngineTaps> engineRuns = new LinkedHashMap<>();
        SequencedMap<String, int[]> layout = new LinkedHashMap<>();
        List<Comparison> againstReference = new ArrayList<>();
        int vocab = references.getFirst().model().geometry().outVocab();
        boolean heads = !ProbeHeadTaps.of(cact).isEmpty();
        for (ReferenceRun ref : references) {
            // Engines whose references compute the same (exact and any float engine; Needle 3's int8 and --quant, which
            // differ only in the default profile) share one run.
            Map<ForwardOptions, SequencedMap<String, BaselineTap>> configurations = new HashMap<>();
            for (EngineMode mode : engines) {
                ReferenceConfig config = mode.reference(quant, cact.geometry().generation());
                SequencedMap<String, BaselineTap> refTaps = configurations.get(config.options());
                if (refTaps == null) {
                    refTaps = referenceTaps(ref.model(), tokens, config, window, sinks, heads);
                    configurations.put(config.options(), refTaps);
                    if (layout.isEmpty()) refTaps.values().forEach(t -> layout.put(t.name(), t.shape()));
                }
                EngineTaps run = engineRuns.get(mode);
                if (run == null) {
                    run = opened.run(mode, tokens, layout.keySet());
                    engineRuns.put(mode, run);
                }
                String baseline = ref.weights() == null ? config.description() : config.description() + " on " + ref.weights();
                againstReference.add(compare(refTaps, run, mode, baseline, ref.weights(), null, ref.profiles().get(mode),
                        tokens.length, vocab));
            }
        }
        List<Comparison> pairs = new ArrayList<>();
        for (int j = 1; j < engines.size(); j++) {
            for (int i = 0; i < j; i++) {
                SequencedMap<String, BaselineTap> base = engineTaps(layout, engineRuns.get(engines.get(i)));
                pairs.add(compare(base, engineRuns.get(engines.get(j)), engines.get(j), "engine " + engines.get(i).label(), null,
                        engines.get(i), null, tokens.length, vocab));
            }
        }
        return new ParityResult(List.copyOf(againstReference), List.copyOf(pairs));
    }

    private static SequencedMap<String, BaselineTap> referenceTaps(ReferenceForward reference, int[] tokens, ReferenceConfig config,
                                                                   int window, int sinks, boolean heads) throws WorkbenchException {
        Taps recorder = Taps.all();
        ForwardOptions options = config.options().withTaps(recorder);
        if (window > 0) options = options.withWindow(window, sinks);
        reference.forward(tokens, options);
        SequencedMap<String, BaselineTap> out = new LinkedHashMap<>();
        for (Taps.Tap t : recorder.recorded().values()) out.put(t.name(), new BaselineTap(t.name(), t.shape(), t.values()));
        if (heads) {
            ProbeHeadTaps.reference(reference, tokens, options.withTaps(null)).forEach((name, values) ->
                    out.put(name, new BaselineTap(name, new int[] {values.length}, values)));
        }
        return out;
    }

    /** An engine's taps as a baseline, in the reference's order and shapes. */
    private static SequencedMap<String, BaselineTap> engineTaps(SequencedMap<String, int[]> layout, EngineTaps run) {
        SequencedMap<String, BaselineTap> out = new LinkedHashMap<>();
        layout.forEach((name, shape) -> {
            float[] v = run.get(name);
            if (v == null) return;
            double[] wide = new double[v.length];
            for (int i = 0; i < v.length; i++) wide[i] = v[i];
            out.put(name, new BaselineTap(name, shape, wide));
        });
        return out;
    }

    /** {@code profile} null: every tap is reported, none judged. */
    private static Comparison compare(SequencedMap<String, BaselineTap> baseline, EngineTaps run, EngineMode mode, String baselineName,
                                      String weights, EngineMode baselineEngine, ToleranceProfile profile, int positions, int vocab) {
        List<TapResult> results = new ArrayList<>();
        double[] lastBase = null;
        float[] lastEngine = null;
        for (BaselineTap tap : baseline.values()) {
            float[] got = run.get(tap.name());
            if (got == null) continue;
            TapMetrics metrics = TapMetrics.of(tap.values(), got);
            ToleranceProfile.Rule rule = profile == null ? null : profile.ruleFor(tap.name());
            LogitMetrics logits = null;
            if (tap.name().equals("logits")) {
                logits = LogitMetrics.of(tap.values(), got, positions, vocab, rule == null ? 0 : rule.limits().tieMargin());
                lastBase = Arrays.copyOfRange(tap.values(), (positions - 1) * vocab, positions * vocab);
                lastEngine = Arrays.copyOfRange(got, (positions - 1) * vocab, positions * vocab);
            }
            List<String> violations = rule == null ? List.of() : rule.limits().violations(metrics, logits);
            results.add(new TapResult(tap.name(), TapSites.layer(tap.name()), TapSites.site(tap.name()),
                    TapSites.operation(tap.name()), tap.shape(), metrics, logits, rule == null ? null : rule.glob(), violations));
        }
        if (lastBase == null) throw new IllegalStateException("the engine or its baseline recorded no logits tap");
        return new Comparison(mode, baselineName, weights, baselineEngine, profile == null ? null : profile.name(), positions,
                List.copyOf(results), lastBase, lastEngine);
    }
}
