package dev.needlewb.cli;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.core.tokenizer.Tokenizer;
import dev.needlewb.reports.report.InputFile;
import dev.needlewb.reports.report.Report;
import dev.needlewb.reference.ReferenceForward;
import dev.needlewb.reports.toolcalls.CaseEngines;
import dev.needlewb.reports.toolcalls.ReferenceCaseEngine;
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

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws WorkbenchException, java.io.IOException {
        ThresholdProfile profile = ThresholdProfile.named(profileName);
        if (maxNew < 1) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--max-new must be at least 1, got " + maxNew);
        ToolCallArguments.checkThinkMax(thinkMax);
        int capped = ThreadCount.of(threads, spec.commandLine().getErr());
        List<String> names = new ArrayList<>(new LinkedHashSet<>(engines));
        for (String n : names) CaseEngines.factory(n);
        if (against != null) names.addFirst(REFERENCE);
        if (names.size() < 2) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--engine needs at least two different engines to compare, got " + engines);
        ReportFiles.checkWritable(out);
        if (limit != null && limit < 1) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--limit must be at least 1, got " + limit);
        List<ToolCallCase> cases = ToolCallCase.read(casesFile);
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
            ToolCallEval eval = new ToolCallEval(runner, cases, prepared, maxNew);
            ReferenceForward reference = null;
            if (against != null) {
                ModelSource source = ModelSource.load(against, like != null ? like : model, nonFinite.policy());
                if (!source.geometry().equals(cact.geometry())) {
                    throw new WorkbenchException(ErrorKind.MODEL_MISMATCH, against + ": its geometry differs from " + model + "'s");
                }
                reference = source.reference();
            }
            ReferenceForward referenceModel = reference;
            long total = (long) cases.size() * names.size();
            long[] done = {0};
            List<ToolCallEval.EngineRun> runs;
            try (Progress progress = Progress.logging("eval toolcalls", total, "cases", say)) {
                runs = eval.run(names, name -> name.equals(REFERENCE) ? new ReferenceCaseEngine(referenceModel)
                        : CaseEngines.factory(name).open(cact, capped), () -> progress.update(++done[0]));
            }
            ToolCallReport result = new ToolCallReport(eval, runs, profile, tokenizer, capped);
            List<InputFile> inputs = new ArrayList<>();
            inputs.add(InputFile.of("model", cact));
            if (Files.exists(casesFile)) inputs.add(InputFile.of("cases", casesFile));
            if (against != null) inputs.add(InputFile.of("against", against));
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
