package dev.needlewb.cli;

import dev.needlewb.cli.scale.ScaleOptions;
import dev.needlewb.cli.scale.SweepJob;
import dev.needlewb.cli.scale.SweepRunner;
import dev.needlewb.converter.synth.DrawnModel;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.engine.torch.TorchBackend;
import dev.needlewb.reports.parity.EngineMode;
import dev.needlewb.reports.parity.ToleranceProfile;
import dev.needlewb.reports.report.Report;
import dev.needlewb.reports.sweep.CommandOutcome;
import dev.needlewb.reports.sweep.EngineVerdict;
import dev.needlewb.reports.sweep.GeometryOutcome;
import dev.needlewb.reports.sweep.SweepReport;
import dev.needlewb.reports.sweep.SyntheticCheckpoint;
import dev.needlewb.reports.sweep.WidthOutcome;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Draws valid geometries of each generation asked for ({@link DrawnModel#draw}), and for each writes an upstream-style checkpoint and a
 * tokenizer, converts them with {@code convert} as a user would, then runs {@code parity} (every engine
 * against the float64 reference under its profile) at every vector width asked for, each width in a JVM
 * of its own; one report, {@code sweep.json} and {@code sweep.md}. The files stay in
 * {@code OUT/geometries/NAME/} so a failure can be rerun by hand.
 */
@Command(name = "geometries", mixinStandardHelpOptions = true,
        description = {"Draw valid Needle 2 and Needle 3 geometries (upstream's rules, see docs/geometry.md), convert a synthetic checkpoint of each",
            "and run parity with every engine at every vector width; writes sweep.json and sweep.md.",
            "Exit 0: every geometry passed everywhere; 1: some comparison out of tolerance or some command failed; 2: bad options."})
final class GeometrySweepCommand implements Callable<Integer> {
    private static final List<Integer> WIDTHS = List.of(128, 256, 512);
    private static final int MAX_COUNT = 10_000;
    /** The values of --generation that name one generation. */
    private static final Map<String, Generation> GENERATIONS = Map.of("2", Generation.NEEDLE2, "3", Generation.NEEDLE3);

    @Option(names = "--generation", paramLabel = "2|3|both", defaultValue = "both",
            description = "Needle generation of the geometries: 2, 3 or both, --count of each (default: ${DEFAULT-VALUE}).")
    String generation;

    @Option(names = "--count", paramLabel = "N", defaultValue = "12",
            description = "Geometries to draw of each generation: the corner geometries first (8 of Needle 2, 6 of Needle 3), then random ones (default: ${DEFAULT-VALUE}).")
    int count;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "2026", description = "Seed of the draws and the weights (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--only", paramLabel = "K", description = "Run geometry K (0-based) of one generation's draws alone (with --generation 2 or 3).")
    Integer only;

    @Option(names = "--widths", split = ",", paramLabel = "BITS", defaultValue = "128,256,512",
            description = "Vector widths, each in a JVM of its own; wider than the machine runs the Java fallback (default: ${DEFAULT-VALUE}).")
    List<Integer> widths;

    @Option(names = "--engine", split = ",", paramLabel = "exact|int8|batch|torch", defaultValue = "exact,int8,batch,torch",
            description = {"Engines held to the reference (default: ${DEFAULT-VALUE}).",
                "torch needs torch/target/needle-wb-torch.jar (NEEDLE_WB_TORCH=1 ./needle-wb)."})
    List<String> engines;

    @Option(names = "--profile", paramLabel = "strict|int8|converted|FILE",
            description = "Tolerance profile for every comparison (default: each engine's own, as parity chooses).")
    String profile;

    @Option(names = "--tokens", paramLabel = "N", defaultValue = "20", description = "Prompt length of each parity run (default: ${DEFAULT-VALUE}).")
    int tokens;

    @Option(names = "--jobs", paramLabel = "J", description = "Widths run at once (default: as many as processors, at most the widths).")
    Integer jobs;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "needle-wb-out/sweep", description = "Folder for the models and the report (default: ${DEFAULT-VALUE}).")
    Path out;

    @picocli.CommandLine.Mixin
    ScaleOptions scale;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws WorkbenchException, IOException {
        checkOptions();
        PrintWriter say = spec.commandLine().getOut();
        if (engines.contains(EngineMode.TORCH.label())) {
            // Loads libtorch here once, so the children never extract it at the same time.
            say.println("engine torch: " + TorchBackend.find().describe());
        }
        List<Integer> indices = only != null ? List.of(only) : java.util.stream.IntStream.range(0, count).boxed().toList();
        List<Converted> converted = new ArrayList<>();
        try (Progress progress = Progress.start("convert", indices.size() * generations.size())) {
            for (Generation g : generations) {
                for (int i : indices) {
                    converted.add(convert(g, i));
                    progress.update(converted.size());
                }
            }
        }
        Map<Integer, Map<String, GeometryParityTask.Result>> byWidth = runWidths(converted, say);
        List<GeometryOutcome> outcomes = new ArrayList<>();
        for (Converted c : converted) outcomes.add(outcome(c, byWidth));
        GeometryOutcome first = outcomes.stream().filter(o -> !o.passed()).findFirst().orElse(null);
        SweepReport report = new SweepReport(new SweepReport.Settings(generations, seed, count, only, widths, engines, tokens), outcomes,
                first == null ? List.of() : reproduce(first), CommandLines.of(spec));
        List<Path> written = ReportFiles.write(out, SweepReport.KIND, report.report(), report.markdown(), null);
        say.println(report.headline());
        if (first != null) say.println("reproduce: " + String.join("\n           ", reproduce(first)));
        say.println("wrote " + written.stream().map(Path::toString).collect(Collectors.joining(", ")));
        say.flush();
        return report.passed() ? 0 : 1;
    }

    /** The generations of {@code --generation}, in release order. */
    private List<Generation> generations;

    private void checkOptions() throws WorkbenchException {
        if (generation.equals("both")) {
            generations = List.of(Generation.values());
        } else if (GENERATIONS.containsKey(generation)) {
            generations = List.of(GENERATIONS.get(generation));
        } else {
            throw new WorkbenchException(ErrorKind.BAD_OPTION, "--generation must be 2, 3 or both, got '" + generation + "'");
        }
        if (count < 1 || count > MAX_COUNT) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--count must be 1.." + MAX_COUNT + ", got " + count);
        if (only != null && generations.size() > 1) {
            throw new WorkbenchException(ErrorKind.BAD_OPTION, "--only needs --generation 2 or 3 (each generation's draws are numbered from 0)");
        }
        if (only != null && (only < 0 || only >= count)) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--only must be 0.." + (count - 1) + " (--count " + count + "), got " + only);
        for (int w : widths) if (!WIDTHS.contains(w)) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--widths: " + w + " is not one of 128, 256, 512");
        widths = List.copyOf(new LinkedHashSet<>(widths));
        for (String e : engines) {
            if (EngineMode.byLabel(e) == null) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--engine: unknown engine '" + e + "' (known: exact, int8, batch, torch)");
        }
        engines = List.copyOf(new LinkedHashSet<>(engines));
        if (tokens < 2 || tokens > 256) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--tokens must be 2..256, got " + tokens);
        if (jobs != null && jobs < 1) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--jobs must be at least 1, got " + jobs);
        if (profile != null) ToleranceProfile.resolve(profile);
        ReportFiles.checkWritable(out);
        scale.check();
        if (scale.shipModels()) {
            throw new WorkbenchException(ErrorKind.BAD_OPTION, "--ship-models: the sweep's models are written as it runs; give --out a folder every executor shares");
        }
    }

    /** A drawn geometry with its files and how its conversion ended. */
    private record Converted(int index, DrawnModel drawn, Path dir, Path model, CommandOutcome convert) {}

    private Converted convert(Generation g, int index) throws WorkbenchException, IOException {
        DrawnModel drawn = DrawnModel.draw(g, seed, index);
        Path dir = out.resolve("geometries").resolve(drawn.name());
        Files.createDirectories(dir);
        Path checkpoint = dir.resolve("checkpoint.pkl"), tokenizer = dir.resolve("tokenizer.model"), model = dir.resolve("model.cact");
        SyntheticCheckpoint.write(drawn, seed * 31 + index, checkpoint, tokenizer);
        CommandOutcome convert = inProcess("convert", checkpoint.toString(), "--to", model.toString(), "--tokenizer", tokenizer.toString(),
                "--bits-map", drawn.bitsMap(), "--group", Integer.toString(drawn.group()));
        return new Converted(index, drawn, dir, model, convert);
    }

    private static CommandOutcome inProcess(String... args) {
        StringWriter sink = new StringWriter();
        PrintWriter w = new PrintWriter(sink, true);
        long t0 = System.nanoTime();
        int exit = Main.run(args, w, w);
        return new CommandOutcome(exit, exit == 0 ? null : sink.toString().strip().lines().findFirst().orElse(""), (System.nanoTime() - t0) / 1e9);
    }

    /** The parity command of one geometry at one width (the width itself is the process's). */
    private List<String> parityArgs(Converted c, int bits) throws WorkbenchException {
        List<String> args = new ArrayList<>(List.of("parity", c.model().toString(), "--tokens", promptIds(c.drawn().geometry().vocab()),
                "--engine", String.join(",", engines), "--out", c.dir().resolve("parity-" + bits).toString(), "--no-html"));
        if (profile != null) args.addAll(List.of("--profile", profile));
        return args;
    }

    /** BOS, then ids spread over the vocabulary (chat markers and byte pieces included). */
    private String promptIds(int vocab) {
        StringJoiner ids = new StringJoiner(",");
        ids.add("2");
        for (int i = 1; i < tokens; i++) ids.add(Integer.toString(4 + (int) Math.floorMod(i * 7919L + seed, (long) vocab - 4)));
        return ids.toString();
    }

    /**
     * Runs every converted geometry's parity at each width as one sweep: a task per geometry and
     * width, the tasks of one width in a child JVM at that width ({@link GeometryParityTask}), the
     * widest first (on a narrower machine it runs the Java fallback and takes longest); in this
     * process {@code jobs} widths at a time. Returns the result of each geometry's command by width.
     */
    private Map<Integer, Map<String, GeometryParityTask.Result>> runWidths(List<Converted> converted, PrintWriter say)
            throws WorkbenchException, IOException {
        Path work = out.resolve("runs").toAbsolutePath();
        Files.createDirectories(work);
        List<Integer> order = widths.stream().sorted(java.util.Comparator.reverseOrder()).toList();
        List<GeometryParityTask> tasks = new ArrayList<>();
        for (int bits : order) {
            Path log = work.resolve("log-" + bits + ".txt");
            Files.deleteIfExists(log);
            int before = tasks.size();
            for (Converted c : converted) {
                if (c.convert().exit() != 0) continue;
                tasks.add(new GeometryParityTask(c.drawn().name(), bits, parityArgs(c, bits), parityJson(c, bits).toString(), log.toString()));
            }
            say.println("parity at " + bits + " bits: " + (tasks.size() - before) + " geometries in a child JVM (log " + log + ")");
        }
        say.flush();
        int parallel = jobs != null ? jobs : Math.min(order.size(), Runtime.getRuntime().availableProcessors());
        List<GeometryParityTask.Result> results;
        try (SweepRunner sweep = scale.runner("needle-wb sweep geometries", parallel)) {
            results = sweep.run(new SweepJob<>("sweep geometries", "parity runs", tasks, List.of(), say, false));
        }
        Map<Integer, Map<String, GeometryParityTask.Result>> byWidth = new HashMap<>();
        for (int i = 0; i < tasks.size(); i++) byWidth.computeIfAbsent(tasks.get(i).bits(), b -> new HashMap<>()).put(tasks.get(i).geometry(), results.get(i));
        return byWidth;
    }

    private static Path parityJson(Converted c, int bits) {
        return c.dir().toAbsolutePath().resolve("parity-" + bits).resolve("parity.json");
    }

    private GeometryOutcome outcome(Converted c, Map<Integer, Map<String, GeometryParityTask.Result>> byWidth) throws WorkbenchException, IOException {
        List<WidthOutcome> perWidth = new ArrayList<>();
        if (c.convert().exit() == 0) {
            for (int bits : widths) {
                GeometryParityTask.Result result = byWidth.get(bits).get(c.drawn().name());
                CommandOutcome parity = result.outcome();
                List<EngineVerdict> verdicts = List.of();
                if (parity.ran()) {
                    verdicts = EngineVerdict.fromParity(Report.JSON.readTree(result.parityJson()), profile == null ? null : ToleranceProfile.resolve(profile));
                }
                perWidth.add(new WidthOutcome(bits, parity, verdicts));
            }
        }
        return new GeometryOutcome(c.index(), c.drawn(), c.drawn().describe(), c.model(), c.convert(), perWidth);
    }

    /** The command lines that rerun {@code o} alone: the sweep of that one draw, and its failing parity run on the kept file. */
    private List<String> reproduce(GeometryOutcome o) throws WorkbenchException {
        String launcher = (engines.contains(EngineMode.TORCH.label()) ? "NEEDLE_WB_TORCH=1 " : "") + "./needle-wb";
        List<String> lines = new ArrayList<>();
        String g = GENERATIONS.entrySet().stream().filter(e -> e.getValue() == o.drawn().generation()).findFirst().orElseThrow().getKey();
        lines.add(launcher + " sweep geometries --generation " + g + " --seed " + seed
                + " --count " + count + " --only " + o.index() + " --widths "
                + widths.stream().map(String::valueOf).collect(Collectors.joining(",")) + " --engine " + String.join(",", engines)
                + " --tokens " + tokens + (profile != null ? " --profile " + profile : "") + " --out " + out.resolve("only-" + o.drawn().name()));
        int bits = o.failingBits();
        if (bits != 0) {
            Converted c = new Converted(o.index(), o.drawn(), o.model().getParent(), o.model(), o.convert());
            lines.add("NEEDLE_VECTOR_BITS=" + bits + " " + launcher + " " + String.join(" ", parityArgs(c, bits)));
        }
        return lines;
    }
}
