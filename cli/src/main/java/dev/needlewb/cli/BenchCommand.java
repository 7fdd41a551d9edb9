package dev.needlewb.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.EngineOptions;
import dev.needlewb.engine.generate.Generator;
import dev.needlewb.engine.generate.Sampler;
import dev.needlewb.core.tokenizer.Tokenizer;
import dev.needlewb.reports.bench.BenchRun;
import dev.needlewb.reports.bench.BenchSummary;
import dev.needlewb.reports.bench.ConstrainedRuns;
import dev.needlewb.core.tokenizer.ToolSchemas;
import dev.needlewb.reports.toolcalls.ToolCallRunner;
import dev.needlewb.reports.bench.EngineMemory;
import dev.needlewb.reports.bench.PeakRss;
import dev.needlewb.reports.bench.ProcStatus;
import dev.needlewb.reports.report.InputFile;
import dev.needlewb.engine.torch.TorchBackend;
import dev.needlewb.reports.report.Report;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Time the engine on a model: load, tokenization, prefill, time to first token, decode, peak RSS;"
                + " writes bench.json and bench.md.")
final class BenchCommand implements Callable<Integer> {
    @Parameters(paramLabel = "MODEL.cact")
    Path model;

    @Option(names = "--prompt", paramLabel = "TEXT", defaultValue = "What is the weather in Paris?",
            description = "Prompt text, fed behind BOS (default: ${DEFAULT-VALUE}).")
    String prompt;

    @Option(names = "--prompt-tokens", paramLabel = "N",
            description = "Stretch or cut the prompt to exactly N tokens (BOS, then the text's ids repeated).")
    Integer promptTokens;

    @Option(names = "--new-tokens", paramLabel = "N", defaultValue = "64",
            description = "Tokens generated per run; EOS does not stop a run (default: ${DEFAULT-VALUE}).")
    int newTokens;

    @Option(names = "--warmup", paramLabel = "N", defaultValue = "3", description = "Untimed runs first (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--repetitions", paramLabel = "N", defaultValue = "5", description = "Timed runs (default: ${DEFAULT-VALUE}).")
    int repetitions;

    @Mixin
    EngineArguments engineArguments;

    @picocli.CommandLine.ArgGroup(exclusive = false)
    ToolBench toolBench;

    /** {@code --tools F --query Q}: the prompt is the tool-call template; each run also decodes constrained. */
    static final class ToolBench {
        @Option(names = "--tools", paramLabel = "tools.json", required = true,
                description = "Bench a tool call: the prompt renders these tools and --query; each run decodes free, then constrained.")
        Path tools;

        @Option(names = "--query", paramLabel = "TEXT", required = true, description = "The user's request (with --tools).")
        String query;

        @Option(names = "--think-max", paramLabel = "N", defaultValue = ToolCallArguments.THINK_MAX_DEFAULT,
                description = ToolCallArguments.THINK_MAX_HELP)
        int thinkMax;

        @Option(names = "--require-call", description = "The constrained answer must call a tool (no empty list).")
        boolean requireCall;
    }

    @Option(names = "--temperature", paramLabel = "T", defaultValue = "0",
            description = "0 = greedy; a random model answers short tool calls greedily, sampling makes longer ones (default: ${DEFAULT-VALUE}).")
    double temperature;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "0", description = "Sampling seed, the same every run (default: ${DEFAULT-VALUE}).")
    long seed;

    private final ConstrainedRuns constrainedRuns = new ConstrainedRuns();

    @Mixin
    PrefillArgument prefillArgument;

    /**
     * Per timed run: setting up the prefill (batch: building its dense weights; torch: loading the
     * weights into libtorch, the first run also libtorch itself); counted in neither load nor prefill.
     */
    private final List<Double> setupMillis = new ArrayList<>();

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "needle-wb-out/bench",
            description = "Folder for bench.json and bench.md (default: ${DEFAULT-VALUE}).")
    Path out;

    @picocli.CommandLine.Mixin
    NonFiniteOption nonFinite;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    private ToolSchemas tools;
    private ToolCallRunner runner;
    private int runIndex;
    private long jvmBaselineKib = PeakRss.UNAVAILABLE;
    private long kvBytes;
    /** The engine's window in effect and its source (the same every run). */
    private int window;
    private String windowText;

    @Override
    public Integer call() throws WorkbenchException, IOException {
        if (newTokens < 1) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--new-tokens must be at least 1, got " + newTokens);
        if (warmup < 0) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--warmup must be >= 0, got " + warmup);
        if (repetitions < 1) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--repetitions must be at least 1, got " + repetitions);
        if (promptTokens != null && promptTokens < 1) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--prompt-tokens must be at least 1, got " + promptTokens);
        EngineOptions options = engineArguments.options();
        InputFile input = InputFile.of("model", model);
        List<InputFile> inputs = toolBench == null ? List.of(input) : List.of(input, InputFile.of("tools", toolBench.tools));
        PrintWriter say = spec.commandLine().getErr();
        List<BenchRun> runs = new ArrayList<>();
        try {
            Sampler.of(temperature, 1, seed);
        } catch (IllegalArgumentException e) {
            throw new WorkbenchException(ErrorKind.BAD_OPTION, e.getMessage());
        }
        if (toolBench != null) {
            ToolCallArguments.checkThinkMax(toolBench.thinkMax);
            tools = ToolSchemas.read(toolBench.tools);
            try (CactFile cact = CactFile.open(model, nonFinite.policy())) {
                // once for all runs: the warm-up runs fill the grammar's mask cache, as a server's first requests would
                runner = new ToolCallRunner(ModelTokenizer.of(cact), toolBench.thinkMax, toolBench.requireCall);
            }
            runner.masks(tools);
        }
        String peakRestartFailure = PeakRss.restart();
        for (int i = 0; i < warmup + repetitions; i++) {
            if (i == warmup) constrainedRuns.clear();
            // The previous run's engine is garbage now: collect it outside the timed region so
            // neither its collection nor its pages count against this run.
            System.gc();
            int setups = setupMillis.size();
            BenchRun run = runOnce(options);
            if (i >= warmup) runs.add(run);
            else if (setupMillis.size() > setups) setupMillis.removeLast();
            say.printf(Locale.ROOT, "%s %d: prefill %.1f tok/s, decode %.1f tok/s%n", i < warmup ? "warm-up" : "run",
                    i < warmup ? i + 1 : i - warmup + 1, run.prefillTokensPerSecond(), run.decodeTokensPerSecond());
            say.flush();
        }
        BenchSummary summary = new BenchSummary(runs, PeakRss.read(peakRestartFailure),
                new EngineMemory(jvmBaselineKib, Files.size(model), kvBytes));
        Report report = new Report("bench", inputs, CommandLines.of(spec));
        ObjectNode body = report.body();
        body.put("mode", options.mode().name().toLowerCase(Locale.ROOT));
        body.put("threads", options.threads());
        body.put("warmup", warmup);
        body.put("repetitions", repetitions);
        body.put("prompt_text", prompt);
        body.put("window", window);
        body.put("window_text", windowText);
        summary.fill(body);
        body.put("temperature", temperature);
        String details = prefillNote(body) + String.format(Locale.ROOT, "%nWindow: %s.%n", windowText);
        if (toolBench != null) {
            body.put("query", toolBench.query);
            body.put("tools_shape", tools.shapes());
            constrainedRuns.fill(body);
            details += String.format(Locale.ROOT, "%nTools: %d, written in the %s shape.%n", tools.size(), tools.shapes()) + "\n" + constrainedRuns.markdown();
        }
        String markdown = summary.markdown(model, options, warmup, repetitions,
                BenchSummary.method(prefillArgument.name(), temperature, seed), details, inputs);
        List<Path> written = ReportFiles.write(out, "bench", report, markdown, null, model);
        PrintWriter stdout = spec.commandLine().getOut();
        stdout.print(markdown);
        for (Path p : written) stdout.println("wrote " + p);
        stdout.flush();
        return 0;
    }

    /**
     * One full cold run: open and load, tokenize, prefill, generate; the engine is closed after. The
     * resident set is read just before the open and after the last token (the session's KV cache
     * and the touched model pages still resident), outside the timed spans.
     */
    private BenchRun runOnce(EngineOptions options) throws WorkbenchException {
        long rssBefore = ProcStatus.residentKib();
        if (jvmBaselineKib == PeakRss.UNAVAILABLE) jvmBaselineKib = rssBefore;
        long start = System.nanoTime();
        try (CactFile cact = CactFile.open(model, nonFinite.policy())) {
            Tokenizer tokenizer = ModelTokenizer.of(cact);
            try (Engine engine = Engine.load(cact, options)) {
                long loaded = System.nanoTime();
                try (PrefillArgument.Opened prefill = prefillArgument.open(engine, cact)) {
                    long setUp = System.nanoTime();
                    if (prefillArgument.setUp()) setupMillis.add((setUp - loaded) / 1e6);
                    ToolCallRunner.Prepared prepared = null;
                    int[] ids;
                    long tokenized;
                    if (toolBench == null) {
                        int[] encoded = tokenizer.encode(prompt);
                        tokenized = System.nanoTime();
                        ids = promptIds(tokenizer, encoded);
                    } else {
                        prepared = runner.prepare(tools, toolBench.query, "");
                        tokenized = System.nanoTime();
                        ids = prepared.prompt().ids();
                    }
                    Generator generator = new Generator(engine, tokenizer, prefill.prefill());
                    boolean constrainedFirst = prepared != null && runIndex++ % 2 == 1;
                    ToolCallRunner.Outcome c = constrainedFirst ? constrained(generator, engine, prepared) : null;
                    Generator.Result r = generator.generate(engine.newSession(), ids, newTokens, Sampler.of(temperature, 1, seed),
                            false, null, null);
                    if (prepared != null) {
                        if (c == null) c = constrained(generator, engine, prepared);
                        Generator.Timings t = c.result().timings();
                        double constrainedRate = t.decodeSteps() == 0 ? Double.NaN : t.decodeSteps() * 1e9 / t.decodeNanos();
                        double freeRate = r.timings().decodeSteps() * 1e9 / r.timings().decodeNanos();
                        double maskShare = t.decodeNanos() <= 0 ? Double.NaN : (double) c.maskNanos() / (t.decodeNanos() + t.firstTokenNanos() - t.prefillNanos());
                        constrainedRuns.add(new ConstrainedRuns.Pair(freeRate, constrainedRate, c.result().generatedIds().length,
                                c.maskedSteps() == 0 ? Double.NaN : c.maskNanos() / 1e6 / c.maskedSteps(), maskShare, c.callsJson()));
                    }
                    long rssAfter = ProcStatus.residentKib();
                    kvBytes = r.kvCacheBytes();
                    window = engine.window();
                    windowText = engine.windowText();
                    long growth = rssBefore == PeakRss.UNAVAILABLE || rssAfter == PeakRss.UNAVAILABLE ? PeakRss.UNAVAILABLE : rssAfter - rssBefore;
                    return new BenchRun(loaded - start, tokenized - setUp, ids.length, r.generatedIds().length, r.timings(), growth);
                }
            }
        }
    }

    private ToolCallRunner.Outcome constrained(Generator generator, Engine engine, ToolCallRunner.Prepared prepared)
            throws WorkbenchException {
        return runner.run(generator, engine.newSession(), prepared, newTokens, Sampler.of(temperature, 1, seed), true, null, null);
    }

    /**
     * Records which prefill ran ({@code prefill}: native|batch|torch) and, for batch and torch, the
     * median time to set it up per run ({@code batch_prefill_setup_ms}, {@code torch_prefill_setup_ms});
     * for torch the runtime ({@code torch_runtime}); returns the Markdown line saying so.
     */
    private String prefillNote(ObjectNode body) throws WorkbenchException {
        body.put("prefill", prefillArgument.name());
        if (!prefillArgument.setUp()) return "";
        List<Double> sorted = setupMillis.stream().sorted().toList();
        double median = sorted.get(sorted.size() / 2);
        body.put(prefillArgument.name() + "_prefill_setup_ms", median);
        String what = "batch (whole prompt at once, float32 on dense weights); building the dense weights";
        if (prefillArgument.kind == PrefillArgument.Kind.TORCH) {
            String runtime = TorchBackend.find().describe();
            body.put("torch_runtime", runtime);
            what = "torch (whole prompt at once on " + runtime + "); loading the weights into libtorch";
        }
        return String.format(Locale.ROOT, "%nPrefill: %s took %.1f ms per run (median), counted in neither load nor prefill.%n", what, median);
    }

    private int[] promptIds(Tokenizer tokenizer, int[] encoded) throws WorkbenchException {
        int[] natural = GenerateCommand.withBos(tokenizer, encoded);
        if (promptTokens == null) return natural;
        if (encoded.length == 0 && promptTokens > 1) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--prompt-tokens needs a non-empty --prompt to repeat");
        int[] ids = new int[promptTokens];
        ids[0] = tokenizer.bosId();
        for (int i = 1; i < ids.length; i++) ids[i] = encoded[(i - 1) % encoded.length];
        return ids;
    }
}
