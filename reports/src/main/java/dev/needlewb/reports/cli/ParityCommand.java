package dev.needlewb.reports.cli;

import dev.needlewb.converter.WorkbenchException;
import dev.needlewb.converter.convert.Format;
import dev.needlewb.reference.ReferenceModel;
import dev.needlewb.reports.parity.Comparison;
import dev.needlewb.reports.parity.EngineMode;
import dev.needlewb.reports.parity.Parity;
import dev.needlewb.reports.parity.ParityReport;
import dev.needlewb.reports.parity.ToleranceProfile;
import dev.needlewb.reports.report.InputFile;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "parity", mixinStandardHelpOptions = true,
        description = {"Compare the engine with the float64 reference tap by tap and judge every tap against a tolerance profile.",
            "Engine exact is held to reference q0, engine int8 to reference quant=True with int8 KV emulation.",
            "Exit 0: every tap within tolerance; 1: some tap out of tolerance; 2: error."})
final class ParityCommand implements Callable<Integer> {
    /** Exit code when a comparison ran but some tap is out of tolerance. */
    static final int EXIT_OUT_OF_TOLERANCE = 1;

    @Parameters(paramLabel = "MODEL.cact", description = "The model; the reference reads its dequantized weights, the engine the file itself.")
    Path model;

    @ArgGroup(exclusive = true, multiplicity = "1")
    TokenArguments input;

    @Option(names = "--engine", split = ",", paramLabel = "exact|int8|torch", defaultValue = "exact,int8",
            description = "Engine modes to compare (default: ${DEFAULT-VALUE}).")
    List<String> engines;

    @Option(names = "--window", defaultValue = "0", description = "Sliding attention window on both sides (0: none).")
    int window;

    @Option(names = "--sinks", defaultValue = "0", description = "Leading positions always visible under the window.")
    int sinks;

    @Option(names = "--profile", paramLabel = "strict|int8|FILE",
            description = "Tolerance profile for every engine (default: strict for exact, int8 for int8).")
    String profile;

    @Option(names = "--out", defaultValue = "needle-wb-out/parity", paramLabel = "DIR", description = "Folder for parity.json, parity.md and parity.html (default: ${DEFAULT-VALUE}).")
    Path out;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws WorkbenchException, IOException {
        Set<EngineMode> modes = new LinkedHashSet<>();
        for (String e : engines) {
            EngineMode m = EngineMode.byLabel(e);
            if (m == null) throw new WorkbenchException("unknown engine '" + e + "' (known: exact, int8, torch; --against is not supported)");
            modes.add(m);
        }
        if (sinks > 0 && window == 0) throw new WorkbenchException("--sinks needs a --window");
        if (window < 0 || sinks < 0) throw new WorkbenchException("--window and --sinks must not be negative");
        if (Format.of(model) != Format.CACT) throw new WorkbenchException(model + ": parity needs a .cact (the engine runs only .cact files)");
        ToleranceProfile userProfile = profile == null ? null : ToleranceProfile.resolve(profile);

        ModelSource source = ModelSource.load(model, null);
        int[] ids = input.resolve(source.tokenizer(), null, source.geometry().vocab());
        ReferenceModel reference = ReferenceModel.fromFlaxParams(source.flaxParams(), source.geometry());
        List<Comparison> comparisons = new ArrayList<>();
        for (EngineMode m : modes) {
            ToleranceProfile p = userProfile != null ? userProfile : ToleranceProfile.resolve(m.defaultProfile());
            comparisons.add(Parity.compare(reference, model, ids, m, window, sinks, p));
        }

        List<InputFile> inputs = new ArrayList<>();
        inputs.add(InputFile.of("model", model));
        if (input.tokensFile != null) inputs.add(InputFile.of("tokens", input.tokensFile));
        if (profile != null && !ToleranceProfile.BUILT_IN.contains(profile)) inputs.add(InputFile.of("profile", Path.of(profile)));
        ParityReport report = new ParityReport(comparisons, ids, window, sinks, inputs, CommandLines.of(spec));
        List<Path> written = ReportFiles.write(out, "parity", report.report(), report.markdown(), report.html(), model);

        PrintWriter say = spec.commandLine().getOut();
        for (Comparison c : comparisons) {
            var first = c.firstFailure();
            say.printf("%s vs %s: %s%s%n", c.engine().label(), c.engine().referenceRun(), c.passed() ? "PASS" : "FAIL",
                    first == null ? "" : "; first out of tolerance: " + first.name() + " (" + first.operation() + "): "
                            + String.join(", ", first.violations()));
        }
        say.println("wrote " + written.stream().map(Path::toString).reduce((a, b) -> a + ", " + b).orElse(""));
        say.flush();
        return report.passed() ? 0 : EXIT_OUT_OF_TOLERANCE;
    }
}
