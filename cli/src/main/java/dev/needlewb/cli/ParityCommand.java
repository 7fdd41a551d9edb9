package dev.needlewb.cli;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.convert.Format;
import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.engine.EngineGenerations;
import dev.needlewb.reports.parity.Comparison;
import dev.needlewb.reports.parity.EngineMode;
import dev.needlewb.reports.parity.GeometryDifference;
import dev.needlewb.reports.parity.Parity;
import dev.needlewb.reports.parity.ParityReport;
import dev.needlewb.reports.parity.ParityResult;
import dev.needlewb.reports.parity.ReferenceWeights;
import dev.needlewb.reports.parity.ToleranceProfile;
import dev.needlewb.reports.report.InputFile;
import dev.needlewb.engine.torch.TorchBackend;
import dev.needlewb.engine.torch.TorchModel;
import dev.needlewb.engine.torch.TorchSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "parity", mixinStandardHelpOptions = true,
        description = {"Compare engines with the float64 reference tap by tap and judge every tap against a tolerance profile;",
            "also show what each engine adds on top of the engines listed before it.",
            "Engine exact is held to reference q0, engine int8 to reference quant=True with int8 KV emulation.",
            "Exit 0: every tap within tolerance; 1: some tap out of tolerance; 2: error (no report written)."})
final class ParityCommand implements Callable<Integer> {
    /** Exit code when a comparison ran but some tap is out of tolerance. */
    static final int EXIT_OUT_OF_TOLERANCE = 1;
    /** The profile for a reference whose weights differ from the model's dequantized weights. */
    static final String CONVERTED_PROFILE = "converted";

    @Parameters(paramLabel = "MODEL.cact", description = "The model the engines run (and, without --against, the weights the reference reads, dequantized).")
    Path model;

    @Option(names = "--against", paramLabel = "CHECKPOINT|CACT|PT",
            description = {"Run the reference on these weights: a Flax checkpoint (.pkl), another .cact, or a state dict (.pt/.safetensors, geometry and names from --like, default MODEL).",
                "When they differ from MODEL's, the reference also runs on MODEL's own weights, which isolates the engines' own error."})
    Path against;

    @Option(names = "--like", paramLabel = "FILE.cact", description = "Geometry and names for a state-dict --against (default: MODEL).")
    Path like;

    @ArgGroup(exclusive = true, multiplicity = "1")
    TokenArguments input;

    @Option(names = "--engine", split = ",", paramLabel = "exact|int8|batch|torch", defaultValue = "exact,int8",
            description = {"Engines to compare, in report order; each later one is also compared with each earlier one (default: ${DEFAULT-VALUE}).",
                "torch: libtorch float32, needs torch/target/needle-wb-torch.jar."})
    List<String> engines;

    @Option(names = "--torch-weights", paramLabel = "PT|SAFETENSORS|CACT|CHECKPOINT",
            description = {"The weights engine torch runs (a state dict takes names and geometry from MODEL); default: MODEL's, dequantized.",
                "Every key is checked first: a missing, extra or misshapen one is a one-line error."})
    Path torchWeights;

    @Option(names = "--quant", description = {"Hold every engine to upstream's quant=True reference (A8 fake quant at the four sites,",
            "float KV; int8 keeps its int8 KV emulation) instead of its own numerics; float engines then default to the 'quant' profile."})
    boolean quant;

    @Option(names = "--window", paramLabel = "N",
            description = "Sliding attention window on both sides (0: none). Needed when the prompt is longer than the model's kv_window.")
    Integer window;

    @Option(names = "--sinks", defaultValue = "0", paramLabel = "K", description = "Leading positions always visible under the window.")
    int sinks;

    @Option(names = "--profile", paramLabel = "strict|int8|converted|FILE",
            description = "Tolerance profile for every comparison (default: strict for exact, int8 for int8; converted against --against weights that differ from MODEL's).")
    String profile;

    @Option(names = "--out", defaultValue = "needle-wb-out/parity", paramLabel = "DIR", description = "Folder for parity.json, parity.md and parity.html (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--no-html", description = "Write parity.json and parity.md only (drawing the HTML page's charts takes most of a small model's run).")
    boolean noHtml;

    @picocli.CommandLine.Mixin
    NonFiniteOption nonFinite;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws WorkbenchException, IOException {
        List<EngineMode> modes = engineModes();
        if (window != null && window < 0 || sinks < 0) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--window and --sinks must not be negative");
        if (sinks > 0 && (window == null || window == 0)) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--sinks needs a --window");
        if (Format.of(model) != Format.CACT) throw new WorkbenchException(ErrorKind.BAD_OPTION, model + ": parity needs a .cact (the engines run only .cact files)");
        if (like != null && (against == null || !Format.of(against).isStateDict())) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--like is for a state-dict --against");
        if (torchWeights != null && !modes.contains(EngineMode.TORCH)) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--torch-weights is for --engine torch");
        ToleranceProfile userProfile = profile == null ? null : ToleranceProfile.resolve(profile);
        ReportFiles.checkWritable(out);

        try (CactFile cact = CactFile.open(model, nonFinite.policy())) {
            EngineGenerations.require(cact);
            ModelGeometry geometry = cact.geometry();
            MemorySegment tokenizer = cact.tokenizerBlob();
            int[] ids = input.resolve(tokenizer == null ? null : tokenizer.toArray(ValueLayout.JAVA_BYTE), null, geometry.vocab(), cact.generation().generation());
            if (ids.length > geometry.maxSeqLen()) {
                throw new WorkbenchException(ErrorKind.BAD_PROMPT, "the prompt has " + ids.length + " tokens, more than the model's max_seq_len "
                        + geometry.maxSeqLen());
            }
            Window effective = EngineGenerations.takesKvWindow(cact) ? checkLength(ids.length, Geometry.of(geometry)) : checkModelMask(geometry);

            ReferenceSide side = referenceSide(cact);
            ReferenceWeights weights = side.weights();
            List<Parity.ReferenceRun> references = new ArrayList<>();
            if (against != null) {
                references.add(new Parity.ReferenceRun(side.against().reference(),
                        against.toString(), profiles(modes, userProfile, weights.identical() ? null : CONVERTED_PROFILE, quant, geometry.generation())));
            }
            if (against == null || !weights.identical()) {
                // With differing --against weights, MODEL's own weights as well: that separates the
                // engines' own error from the quantization error the --against reference measures.
                references.add(new Parity.ReferenceRun(side.own().reference(),
                        null, profiles(modes, userProfile, null, quant, geometry.generation())));
            }
            TorchSource torch = modes.contains(EngineMode.TORCH) ? torchSource(geometry, side.own()) : null;
            ParityResult result = Parity.run(references, cact, torch, ids, effective.size(), sinks, modes, quant);

            List<InputFile> inputs = new ArrayList<>();
            inputs.add(InputFile.of("model", cact));
            if (against != null) inputs.add(InputFile.of("against", against));
            if (like != null) inputs.add(InputFile.of("like", like));
            if (torchWeights != null) inputs.add(InputFile.of("torch-weights", torchWeights));
            if (input.tokensFile != null) inputs.add(InputFile.of("tokens", input.tokensFile));
            if (profile != null && !ToleranceProfile.BUILT_IN.contains(profile)) inputs.add(InputFile.of("profile", Path.of(profile)));
            ParityReport report = new ParityReport(result, weights, ids, effective.size(), effective.text(), sinks, inputs, CommandLines.of(spec));
            List<Path> written = ReportFiles.write(out, "parity", report.report(), report.markdown(), noHtml ? null : report.html(),
                    inputs.stream().map(InputFile::path).toArray(Path[]::new));
            printSummary(result, weights, written);
            return report.passed() ? 0 : EXIT_OUT_OF_TOLERANCE;
        }
    }

    /** MODEL's dequantized weights, the --against weights (null without --against) and how they relate. */
    private record ReferenceSide(ModelSource own, ModelSource against, ReferenceWeights weights) {}

    /** Loads the weights the reference reads; --against only once its geometry is known to match MODEL's. */
    private ReferenceSide referenceSide(CactFile cact) throws WorkbenchException {
        ModelGeometry geometry = cact.geometry();
        if (against != null && Format.of(against) == Format.CACT) {
            // A .cact's header tells its geometry before any weight is read.
            try (CactFile other = CactFile.open(against, NonFinitePolicy.ALLOW)) {
                checkSameGeometry(geometry, other.geometry());
            }
        }
        ModelSource own = ModelSource.of(cact);
        if (against == null) return new ReferenceSide(own, null, ReferenceWeights.own(model.toString(), own.flaxLeafCount()));
        ModelSource other = ModelSource.load(against, like != null ? like : model, nonFinite.policy());
        checkSameGeometry(geometry, other.geometry());
        return new ReferenceSide(own, other, ReferenceWeights.compare(against.toString(), own.flaxParams(), other.flaxParams()));
    }

    /**
     * The torch engine on its weights: --torch-weights (a state dict named and shaped by MODEL), else
     * MODEL's own; loaded and checked now, so a bad file fails before any engine runs. Parity opens it once.
     */
    private TorchSource torchSource(ModelGeometry geometry, ModelSource own) throws WorkbenchException {
        ModelSource weights = torchWeights == null ? own : ModelSource.load(torchWeights, model, nonFinite.policy());
        if (torchWeights != null) checkSameGeometry(geometry, weights.geometry());
        // One thread: parity is about the numbers, and one thread is the same work on any machine.
        // the MLP gathers are MODEL's: fixed by its geometry, not trained, so a state dict carries none
        TorchModel loaded = TorchBackend.find().load(weights.geometry(), weights.flaxParams(), own.mlpPermutations(), 1);
        return () -> loaded;
    }

    /** The user's profile for every engine, else {@code name}, else each engine's default. */
    private static Map<EngineMode, ToleranceProfile> profiles(List<EngineMode> modes, ToleranceProfile user, String name, boolean quant,
            Generation generation) throws WorkbenchException {
        Map<EngineMode, ToleranceProfile> out = new LinkedHashMap<>();
        for (EngineMode m : modes) {
            out.put(m, user != null ? user : ToleranceProfile.resolve(name != null ? name : m.reference(quant, generation).defaultProfile()));
        }
        return out;
    }

    private void printSummary(ParityResult result, ReferenceWeights weights, List<Path> written) throws WorkbenchException {
        PrintWriter say = spec.commandLine().getOut();
        if (!weights.identical()) say.println("reference weights: " + weights.describe());
        if (engines.contains(EngineMode.TORCH.label())) say.println("engine torch: " + TorchBackend.find().describe());
        for (Comparison c : result.againstReference()) {
            var first = c.firstFailure();
            say.printf(Locale.ROOT, "%s vs %s: %s (profile %s)%s%n", c.engine().label(), c.baseline(), c.passed() ? "PASS" : "FAIL",
                    c.profile(), first == null ? "" : "; first out of tolerance: " + first.name() + " (" + first.operation() + "): "
                            + String.join(", ", first.violations()));
        }
        for (Comparison c : result.enginePairs()) {
            say.printf(Locale.ROOT, "%s vs %s: logits rel L2 %.3g, mean KL %.3g (not judged)%n", c.engine().label(), c.baseline(),
                    c.logits().metrics().relL2(), c.logits().logits().meanKl());
        }
        say.println("wrote " + written.stream().map(Path::toString).collect(Collectors.joining(", ")));
        say.flush();
    }

    private void checkSameGeometry(ModelGeometry mine, ModelGeometry theirs) throws WorkbenchException {
        String difference = GeometryDifference.of(mine, theirs);
        if (difference != null) {
            throw new WorkbenchException(ErrorKind.MODEL_MISMATCH, against + ": geometry differs from " + model + " (" + difference + "); parity needs the same architecture");
        }
    }

    private List<EngineMode> engineModes() throws WorkbenchException {
        List<EngineMode> modes = new ArrayList<>();
        for (String e : engines) {
            EngineMode m = EngineMode.byLabel(e);
            if (m == null) {
                throw new WorkbenchException(ErrorKind.BAD_OPTION, "unknown engine '" + e + "' (known: "
                        + Arrays.stream(EngineMode.values()).map(EngineMode::label).collect(Collectors.joining(", ")) + ")");
            }
            if (!modes.contains(m)) modes.add(m);
        }
        return modes;
    }

    /**
     * A Needle 3 model attends through its own mask (sliding_window on its local layers, every position on its
     * global ones), on both sides, with nothing on top: --window or --sinks, a Needle 2 deployment's window,
     * are refused.
     */
    private Window checkModelMask(ModelGeometry g) throws WorkbenchException {
        if (window != null && window > 0 || sinks > 0) {
            throw new WorkbenchException(ErrorKind.BAD_OPTION, model + ": a " + g.generation() + " model attends through its own mask (sliding_window "
                    + g.slidingWindowText() + "); --window and --sinks are Needle 2 options");
        }
        return new Window(0, "the model's own mask: sliding_window " + g.slidingWindowText());
    }

    /** The window both sides use (0 = none) and why, for the report. */
    private record Window(int size, String text) {}

    /**
     * The window both sides use for a prompt within max_seq_len. One longer than the model's
     * kv_window needs an explicit --window (production attends through kv_window, a windowless
     * comparison would judge something production never computes); and one longer than --window
     * needs sinks, or its later positions lose the BOS token, a state the model never saw. A
     * header kv_window of max_seq_len or more never binds ({@link Geometry#slidingWindow}).
     */
    private Window checkLength(int positions, Geometry g) throws WorkbenchException {
        if (window == null) {
            int header = g.slidingWindow();
            if (header == 0) return new Window(0, g.slidingWindowText());
            if (positions > header) {
                throw new WorkbenchException(ErrorKind.BAD_PROMPT, "the prompt has " + positions + " tokens, more than the model's kv_window " + header
                        + ": give --window " + header + " --sinks K to compare what production computes, or --window 0 for no window");
            }
            return new Window(0, "none (the " + positions + "-token prompt fits the model's kv_window " + header + ")");
        }
        if (window > 0 && sinks == 0 && positions > window) {
            throw new WorkbenchException(ErrorKind.BAD_PROMPT, "the prompt has " + positions + " tokens, more than --window " + window
                    + " with no --sinks: positions from " + window + " on would not see the BOS token; give --sinks 1 (or more)");
        }
        return new Window(window, window == 0 ? "none (--window 0)" : window + " (--window, " + sinks + " sinks)");
    }
}
