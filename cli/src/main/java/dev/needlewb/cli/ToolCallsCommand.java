package dev.needlewb.cli;

import dev.needlewb.cli.scale.ModelFile;
import dev.needlewb.cli.scale.ScaleOptions;
import dev.needlewb.cli.scale.SweepJob;
import dev.needlewb.cli.scale.SweepRunner;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.tokenizer.PythonJson;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.core.tokenizer.Tokenizer;
import dev.needlewb.reports.report.InputFile;
import dev.needlewb.reports.report.Report;
import dev.needlewb.reports.toolcalls.Answer;
import dev.needlewb.reports.toolcalls.CaseEngines;
import dev.needlewb.reports.toolcalls.ThresholdProfile;
import dev.needlewb.reports.toolcalls.ToolCallCase;
import dev.needlewb.reports.toolcalls.ToolCallEval;
import dev.needlewb.reports.toolcalls.ToolCallReport;
import dev.needlewb.reports.toolcalls.ToolCallRunner;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "toolcalls", mixinStandardHelpOptions = true,
        description = "Run tool-call cases through several engines (greedy, constrained) and report how their calls agree:"
                + " whole call, tool names, each argument, first divergent token; exact match, name accuracy and BFCL's AST"
                + " match against the expected calls when the cases give them. Writes toolcalls.json, .md and .html; exit 0 pass,"
                + " 1 fail (profile), 2 bad input.")
final class ToolCallsCommand implements Callable<Integer> {
    /** The engine name of the float64 reference on {@code --against}. */
    static final String REFERENCE = "reference";

    @Parameters(paramLabel = "MODEL.cact")
    Path model;

    @Option(names = "--cases", paramLabel = "cases.jsonl", required = true,
            description = "One JSON object per line: {\"id\"?, \"query\", \"tools\": [...], \"expected\"?: [calls]} or upstream's"
                    + " fine-tuning line {\"query\", \"tools\", \"answers\", \"reasoning\"?, \"system\"?}; tools in upstream's, OpenAI's or the"
                    + " flattened shape; 'builtin' for the built-in set.")
    Path casesFile;

    @Option(names = "--engine", paramLabel = "E,E", defaultValue = "exact,int8", split = ",",
            description = "Engines, the first is the baseline: exact, int8, batch, torch (needle-wb-torch.jar) (default: ${DEFAULT-VALUE}).")
    List<String> engines;

    @Option(names = "--against", paramLabel = "CHECKPOINT|CACT|PT",
            description = "Also run the float64 reference on these weights (a Flax checkpoint, a .cact dequantized, or a state dict"
                    + " with --like); it becomes the baseline. Clear rather than fast: meant for small models.")
    Path against;

    @Option(names = "--like", paramLabel = "FILE.cact", description = "Geometry and names for a state-dict --against (default: MODEL).")
    Path like;

    @Option(names = "--max-new", paramLabel = "N", defaultValue = "128", description = "Most answer tokens per case (default: ${DEFAULT-VALUE}).")
    int maxNew;

    @Option(names = "--think-max", paramLabel = "N", defaultValue = ToolCallArguments.THINK_MAX_DEFAULT,
            description = ToolCallArguments.THINK_MAX_HELP)
    int thinkMax;

    @Option(names = "--profile", paramLabel = "strict|int8|report", defaultValue = "int8",
            description = "Least agreement with the baseline to pass: strict 100%% calls and names, int8 90%% calls and 95%% names,"
                    + " report never fails (default: ${DEFAULT-VALUE}).")
    String profileName;

    @Option(names = "--limit", paramLabel = "N", description = "Run only the first N cases.")
    Integer limit;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "2", description = "Threads per engine, at most the processors (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "needle-wb-out/toolcalls",
            description = "Folder for toolcalls.json, .md, .html (default: ${DEFAULT-VALUE}).")
    Path out;

    @picocli.CommandLine.Mixin
    NonFiniteOption nonFinite;

    @picocli.CommandLine.Mixin
    ScaleOptions scale;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws WorkbenchException, java.io.IOException {
        ThresholdProfile profile = ThresholdProfile.named(profileName);
        scale.check();
        if (maxNew < 1) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--max-new must be at least 1, got " + maxNew);
        ToolCallArguments.checkThinkMax(thinkMax);
        int capped = ThreadCount.of(threads, spec.commandLine().getErr());
        List<String> names = new ArrayList<>(new LinkedHashSet<>(engines));
        for (String n : names) CaseEngines.factory(n);
        if (against != null) names.addFirst(REFERENCE);
        if (names.size() < 2) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--engine needs at least two different engines to compare, got " + engines);
        ReportFiles.checkWritable(out);
        if (limit != null && limit < 1) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--limit must be at least 1, got " + limit);
        String text = ToolCallCase.text(casesFile);
        String source = ToolCallCase.source(casesFile);
        List<ToolCallCase> cases = ToolCallCase.parse(text, source);
        if (limit != null && limit < cases.size()) cases = cases.subList(0, limit);
        PrintWriter say = spec.commandLine().getErr();
        try (CactFile cact = CactFile.open(model, nonFinite.policy())) {
            Tokenizer tokenizer = ModelTokenizer.of(cact);
            ToolCallRunner runner = new ToolCallRunner(tokenizer, thinkMax, false);
            List<ToolCallRunner.Prepared> prepared = new ArrayList<>();
            int positions = cact.geometry().maxSeqLen();
            for (ToolCallCase c : cases) {
                ToolCallRunner.Prepared p = runner.prepare(c.tools(), c.query(), c.system());
                int room = positions - p.prompt().ids().length;
                if (room < runner.minimumTokens(p)) {
                    throw new WorkbenchException(ErrorKind.BAD_PROMPT, casesFile + ": line " + c.line() + ": the prompt takes " + p.prompt().ids().length + " of the model's "
                            + positions + " positions, leaving no room for an answer");
                }
                prepared.add(p);
            }
            ToolCallEval eval = new ToolCallEval(cases, prepared);
            ModelFile modelFile = ModelFile.of(model);
            List<ModelFile> files = new ArrayList<>(List.of(modelFile));
            ModelFile againstFile = null, likeFile = null;
            if (against != null) {
                ModelSource weights = ModelSource.load(against, like != null ? like : model, nonFinite.policy());
                if (!weights.geometry().equals(cact.geometry())) {
                    throw new WorkbenchException(ErrorKind.MODEL_MISMATCH, against + ": its geometry differs from " + model + "'s");
                }
                files.add(againstFile = ModelFile.of(against));
                if (like != null) files.add(likeFile = ModelFile.of(like));
            }
            ToolCallTask.Setup setup = new ToolCallTask.Setup(modelFile, againstFile, likeFile, nonFinite.policy(), capped, maxNew, thinkMax);
            String[] lines = ToolCallCase.lines(text);
            List<ToolCallTask> tasks = new ArrayList<>();
            for (String name : names) {
                for (int i = 0; i < cases.size(); i++) {
                    ToolCallCase c = cases.get(i);
                    String group = c.system() + "\u0000" + prepared.get(i).tools().toJson(PythonJson.Separators.COMPACT);
                    tasks.add(new ToolCallTask(setup, name, source, c.line(), lines[c.line() - 1], group));
                }
            }
            List<Answer> answers;
            try (SweepRunner sweep = scale.runner("needle-wb eval toolcalls")) {
                answers = sweep.run(new SweepJob<>("eval toolcalls", "cases", tasks, files, say, true));
            }
            List<ToolCallEval.EngineRun> runs = new ArrayList<>();
            for (int e = 0; e < names.size(); e++) {
                runs.add(ToolCallEval.EngineRun.of(names.get(e), answers.subList(e * cases.size(), (e + 1) * cases.size())));
            }
            ToolCallReport result = new ToolCallReport(eval, runs, profile, tokenizer, capped);
            List<InputFile> inputs = new ArrayList<>();
            inputs.add(modelFile.input("model"));
            if (Files.exists(casesFile)) inputs.add(InputFile.of("cases", casesFile));
            if (againstFile != null) inputs.add(againstFile.input("against"));
            Report report = new Report("toolcalls", inputs, CommandLines.of(spec));
            result.fill(report.body(), maxNew, thinkMax);
            String markdown = result.markdown(inputs);
            List<Path> written = Files.exists(casesFile)
                    ? ReportFiles.write(out, "toolcalls", report, markdown, result.html(), model, casesFile)
                    : ReportFiles.write(out, "toolcalls", report, markdown, result.html(), model);
            PrintWriter stdout = spec.commandLine().getOut();
            stdout.println(markdown.lines().findFirst().orElse(""));
            for (Path p : written) stdout.println("wrote " + p);
            stdout.flush();
            say.flush();
            return result.passed() ? 0 : 1;
        }
    }
}
