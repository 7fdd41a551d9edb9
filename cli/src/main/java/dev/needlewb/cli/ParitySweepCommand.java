package dev.needlewb.cli;

import dev.needlewb.cli.scale.ModelFile;
import dev.needlewb.cli.scale.ScaleOptions;
import dev.needlewb.cli.scale.SweepJob;
import dev.needlewb.cli.scale.SweepRunner;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.convert.Format;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.engine.EngineGenerations;
import dev.needlewb.reports.parity.EngineMode;
import dev.needlewb.reports.parity.ParitySweepReport;
import dev.needlewb.reports.parity.PromptParity;
import dev.needlewb.reports.parity.ToleranceProfile;
import dev.needlewb.reports.report.InputFile;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "parity", mixinStandardHelpOptions = true,
        description = {"Parity over many prompts and models: every prompt of --prompts through every engine of every MODEL, each held to the",
            "float64 reference tap by tap as `parity` holds it. Writes parity-sweep.json, .md and .html: a row per (model, engine, prompt)",
            "with its verdict, worst tap and first tap out of tolerance, and a summary per model and engine.",
            "Exit 0: every row within tolerance; 1: some row out of tolerance; 2: error (no report written)."})
final class ParitySweepCommand implements Callable<Integer> {
    @Parameters(paramLabel = "MODEL.cact", arity = "1..*", description = "The models (Needle 2 or Needle 3 .cact files); each one's reference reads its own weights, dequantized.")
    List<Path> models;

    @Option(names = "--prompts", paramLabel = "prompts.txt|prompts.jsonl", required = true,
            description = {"One prompt per line (encoded as BOS + tokens by each model's tokenizer); or, in a .jsonl file, one object per line:",
                "{\"id\"?: \"...\", \"prompt\": \"text\"} or {\"id\"?: \"...\", \"tokens\": [ids]}. Blank lines are skipped."})
    Path promptsFile;

    @Option(names = "--engine", split = ",", paramLabel = "exact|int8|batch", defaultValue = "exact,int8",
            description = "Engines, in report order (default: ${DEFAULT-VALUE}); the torch engine is `parity --engine torch`'s.")
    List<String> engines;

    @Option(names = "--quant", description = "Hold every engine to upstream's quant=True reference, as parity --quant.")
    boolean quant;

    @Option(names = "--profile", paramLabel = "strict|int8|converted|FILE",
            description = "Tolerance profile for every engine (default: each engine's, as parity's).")
    String profile;

    @Option(names = "--out", defaultValue = "needle-wb-out/parity-sweep", paramLabel = "DIR",
            description = "Folder for parity-sweep.json, .md and .html (default: ${DEFAULT-VALUE}).")
    Path out;

    @picocli.CommandLine.Mixin
    NonFiniteOption nonFinite;

    @picocli.CommandLine.Mixin
    ScaleOptions scale;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws WorkbenchException, IOException {
        List<EngineMode> modes = engineModes();
        scale.check();
        ModelFile profileFile = null;
        if (profile != null) {
            ToleranceProfile.resolve(profile);
            if (!ToleranceProfile.BUILT_IN.contains(profile)) profileFile = ModelFile.of(Path.of(profile));
        }
        ReportFiles.checkWritable(out);
        List<PromptFile.Prompt> prompts = PromptFile.read(promptsFile);

        List<ModelFile> files = new ArrayList<>();
        List<ParitySweepReport.Model> described = new ArrayList<>();
        List<int[][]> tokens = new ArrayList<>();
        Set<Path> seen = new HashSet<>();
        for (Path model : models) {
            if (!seen.add(model.toAbsolutePath().normalize())) throw new WorkbenchException(ErrorKind.BAD_OPTION, model + ": given twice");
            if (Format.of(model) != Format.CACT) throw new WorkbenchException(ErrorKind.BAD_OPTION, model + ": parity needs a .cact (the engines run only .cact files)");
            try (CactFile cact = CactFile.open(model, nonFinite.policy())) {
                EngineGenerations.require(cact);
                tokens.add(promptIds(cact, prompts));
                described.add(new ParitySweepReport.Model(model.toString(), cact.generation().generation().displayName()));
            }
            files.add(ModelFile.of(model));
        }
        ParityPromptTask.Setup setup = new ParityPromptTask.Setup(files, nonFinite.policy(), quant,
                profileFile == null ? profile : null, profileFile);
        List<ParityPromptTask> tasks = new ArrayList<>();
        List<ParitySweepReport.Row> rows = new ArrayList<>();
        for (int m = 0; m < models.size(); m++) {
            for (int p = 0; p < prompts.size(); p++) {
                for (EngineMode e : modes) tasks.add(new ParityPromptTask(setup, m, e, p, tokens.get(m)[p]));
            }
        }
        List<ModelFile> shipped = new ArrayList<>(files);
        if (profileFile != null) shipped.add(profileFile);
        PrintWriter say = spec.commandLine().getErr();
        long start = System.nanoTime();
        List<PromptParity> results;
        try (SweepRunner sweep = scale.runner("needle-wb sweep parity")) {
            results = sweep.run(new SweepJob<>("sweep parity", "prompt runs", tasks, shipped, say, true));
        }
        double wall = (System.nanoTime() - start) / 1e9;
        for (int i = 0; i < tasks.size(); i++) {
            ParityPromptTask t = tasks.get(i);
            rows.add(new ParitySweepReport.Row(t.model(), t.engine().label(), t.prompt(), results.get(i)));
        }

        List<InputFile> inputs = new ArrayList<>();
        for (ModelFile f : files) inputs.add(new InputFile("model", Path.of(f.path()), f.bytes(), f.sha256()));
        inputs.add(InputFile.of("prompts", promptsFile));
        if (profileFile != null) inputs.add(new InputFile("profile", Path.of(profileFile.path()), profileFile.bytes(), profileFile.sha256()));
        ParitySweepReport report = new ParitySweepReport(described, modes.stream().map(EngineMode::label).toList(),
                prompts.stream().map(p -> new ParitySweepReport.Prompt(p.id(), p.line())).toList(), rows, quant, wall, inputs, CommandLines.of(spec));
        String markdown = report.markdown();
        List<Path> written = ReportFiles.write(out, "parity-sweep", report.report(), markdown, report.html(),
                inputs.stream().map(InputFile::path).toArray(Path[]::new));
        PrintWriter stdout = spec.commandLine().getOut();
        stdout.println(report.headline());
        for (Path p : written) stdout.println("wrote " + p);
        stdout.flush();
        return report.passed() ? 0 : ParityCommand.EXIT_OUT_OF_TOLERANCE;
    }

    /**
     * Every prompt's ids under {@code cact}'s tokenizer, checked as {@code parity} checks one prompt: within the
     * vocabulary and max_seq_len, and for a Needle 2 model within a binding kv_window (the sweep runs without a window).
     */
    private int[][] promptIds(CactFile cact, List<PromptFile.Prompt> prompts) throws WorkbenchException {
        ModelGeometry geometry = cact.geometry();
        var blob = cact.tokenizerBlob();
        byte[] tokenizer = blob == null ? null : blob.toArray(ValueLayout.JAVA_BYTE);
        int kvWindow = EngineGenerations.takesKvWindow(cact) ? Geometry.of(geometry).slidingWindow() : 0;
        int[][] ids = new int[prompts.size()][];
        for (int i = 0; i < ids.length; i++) {
            PromptFile.Prompt p = prompts.get(i);
            String where = promptsFile + ": line " + p.line() + ": " + cact.path() + ": ";
            TokenArguments input = new TokenArguments();
            input.prompt = p.text();
            input.tokens = p.tokens();
            try {
                ids[i] = input.resolve(tokenizer, null, geometry.vocab(), cact.generation().generation());
            } catch (WorkbenchException e) {
                throw new WorkbenchException(e.kind(), where + e.getMessage(), e);
            }
            if (ids[i].length > geometry.maxSeqLen()) {
                throw new WorkbenchException(ErrorKind.BAD_PROMPT, where + "the prompt has " + ids[i].length + " tokens, more than the model's max_seq_len "
                        + geometry.maxSeqLen());
            }
            if (kvWindow != 0 && ids[i].length > kvWindow) {
                throw new WorkbenchException(ErrorKind.BAD_PROMPT, where + "the prompt has " + ids[i].length + " tokens, more than the model's kv_window "
                        + kvWindow + "; compare it alone with parity --window " + kvWindow + " --sinks K");
            }
        }
        return ids;
    }

    private List<EngineMode> engineModes() throws WorkbenchException {
        List<EngineMode> modes = new ArrayList<>();
        for (String e : new LinkedHashSet<>(engines)) {
            EngineMode m = EngineMode.byLabel(e);
            if (m == null || m == EngineMode.TORCH) {
                throw new WorkbenchException(ErrorKind.BAD_OPTION, "--engine '" + e + "': sweep parity runs exact, int8 and batch"
                        + (m == null ? "" : " (the torch engine: parity --engine torch, one prompt at a time)"));
            }
            modes.add(m);
        }
        return modes;
    }
}
