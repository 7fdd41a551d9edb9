package dev.needlewb.cli;

import dev.needlewb.cli.scale.ModelFile;
import dev.needlewb.cli.scale.ScaleOptions;
import dev.needlewb.cli.scale.SweepJob;
import dev.needlewb.cli.scale.SweepRunner;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.reports.study.IdempotenceResult;
import dev.needlewb.reports.study.IdempotenceStudy;
import dev.needlewb.reports.report.InputFile;
import dev.needlewb.reports.report.Report;
import dev.needlewb.reports.study.IdempotenceReport;
import dev.needlewb.reports.study.StudyTargets;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "idempotence", mixinStandardHelpOptions = true,
        description = {"Iterate dequantize -> re-quantize on CQ tensors until a fixed point, a cycle or the round limit,",
                "and report per tensor and round what changed (idempotence.json, .md, .html)."})
final class IdempotenceCommand implements Callable<Integer> {
    @Parameters(paramLabel = "INPUT", description = "A .cact (round 0 = its stored codes) or a Flax checkpoint (round 0 = quantize of its weights).")
    Path input;

    @Option(names = "--tensor", split = ",", paramLabel = "NAME",
            description = "Study only these tensors (canonical .cact names; repeat the option or separate with commas).")
    List<String> tensors = new ArrayList<>();

    @Option(names = "--bits", paramLabel = "B", description = "Checkpoint only: CQ width 2, 3, 4 or 1.58, or a bits map like embedding=4,default=2 (default: the checkpoint's weight_bits).")
    String bits;

    @Option(names = "--group", paramLabel = "G", description = "Checkpoint only: CQ group, 64 or 128 (default 128).")
    Integer group;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "20", description = "Most rounds per tensor, 1 to 20 (default ${DEFAULT-VALUE}).")
    int rounds;

    @picocli.CommandLine.Mixin
    NonFiniteOption nonFinite;

    @picocli.CommandLine.Mixin
    ScaleOptions scale;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "needle-wb-out/idempotence", description = "Report folder (default ${DEFAULT-VALUE}).")
    Path out;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws WorkbenchException, IOException {
        if (rounds < 1 || rounds > IdempotenceStudy.MAX_ROUNDS) {
            throw new WorkbenchException(ErrorKind.BAD_OPTION, "--rounds " + rounds + ": must be 1 to " + IdempotenceStudy.MAX_ROUNDS);
        }
        scale.check();
        ModelFile file = ModelFile.of(input);
        InputFile inputFile = file.input("input");
        Boolean codebookMatches;
        String kind;
        List<IdempotenceTask> tasks = new ArrayList<>();
        IdempotenceTask.Setup setup = new IdempotenceTask.Setup(file, tensors, bits, group, nonFinite.policy(), rounds);
        try (StudyTargets targets = StudyTargets.open(input, tensors, bits, group, nonFinite.policy())) {
            kind = targets.kind();
            codebookMatches = targets.headerCodebookMatches();
            if (targets.targets().isEmpty()) throw new WorkbenchException(ErrorKind.MISSING_KEY, input + ": no CQ tensors to study");
            for (StudyTargets.Target t : targets.targets()) tasks.add(new IdempotenceTask(setup, t.name()));
        }
        List<IdempotenceResult> results;
        try (SweepRunner sweep = scale.runner("needle-wb study idempotence")) {
            results = sweep.run(new SweepJob<>("idempotence", "tensors", tasks, List.of(setup.input()), spec.commandLine().getErr(), false));
        }
        IdempotenceReport study = new IdempotenceReport(kind, rounds, results, List.of(inputFile), codebookMatches);
        Report report = study.toReport(CommandLines.of(spec));
        String markdown = study.markdown();
        List<Path> written = ReportFiles.write(out, "idempotence", report, markdown, study.html(), input);
        spec.commandLine().getOut().print(markdown);
        spec.commandLine().getOut().println("Wrote " + written.stream().map(Path::toString).reduce((a, b) -> a + ", " + b).orElse(""));
        spec.commandLine().getOut().flush();
        return 0;
    }

}
