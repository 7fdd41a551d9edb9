package dev.needlewb.cli;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.reports.inspect.InspectReport;
import dev.needlewb.reports.report.InputFile;
import dev.needlewb.reports.report.Report;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "inspect", mixinStandardHelpOptions = true,
        description = {"Validate a .cact file completely (header, codebook, directory, blobs, tokenizer) and print its geometry,",
            "every tensor, its size statistics and every tensor holding NaN or infinity; check FILE.manifest.json beside it.",
            "Exit 0: valid; 1: valid, but some weights are not finite or the manifest beside it describes another file; 2: refused."})
final class InspectCommand implements Callable<Integer> {
    @Parameters(paramLabel = "FILE.cact", description = "The file to inspect.")
    Path file;

    @Option(names = "--json", description = "Print the JSON report instead of the Markdown one.")
    boolean json;

    @Option(names = "--out", paramLabel = "DIR", description = "Also write inspect.json and inspect.md into DIR.")
    Path out;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws WorkbenchException, IOException {
        // inspect reports non-finite weights rather than refusing them
        try (CactFile cact = CactFile.open(file, NonFinitePolicy.ALLOW)) {
            cact.tokenizerVocab();
            InspectReport inspect = new InspectReport(cact, InputFile.of("model", cact));
            Report report = inspect.toReport(CommandLines.of(spec));
            String markdown = inspect.markdown();
            if (out != null) ReportFiles.write(out, "inspect", report, markdown, null, file);
            spec.commandLine().getOut().print(json ? report.json() : markdown);
            spec.commandLine().getOut().flush();
            return inspect.passed() ? 0 : 1;
        }
    }
}
