package dev.needlewb.cli;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactModel;
import dev.needlewb.converter.cact.CactWriter;
import dev.needlewb.converter.v2.ProbeHead;
import dev.needlewb.converter.synth.SyntheticCact;
import dev.needlewb.reports.inspect.InspectReport;
import dev.needlewb.reports.report.InputFile;
import dev.needlewb.reports.report.Markdown;
import dev.needlewb.reports.report.Report;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The README's main job: end-to-end work on built-in defaults, no input needed: Needle 2 through
 * every command, then Needle 3 ({@link Needle3Demo}). Each step prints
 * one line and the run ends with the paths of its reports. Exit 1 (and a loud line) when parity
 * finds an engine outside its profile, 0 otherwise.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run the workbench end to end on a synthetic model of the released Needle 2 geometry, then convert a"
                + " synthetic Needle 3 model, run its float64 reference, parity and two tool calls.")
final class DemoCommand implements Callable<Integer> {
    /** A tensor of the released geometry's middle layer for the quantizer study. */
    /** One tensor of each row layout: CQ2 with 4 groups per row, CQ4 with 16, CQ2 with 1. */
    static final List<String> STUDIED_TENSORS = List.of("layer13.q_proj", "mhc_phi_pre", "engram0.tables");
    /** A short prompt for the parity step (the synthetic tokenizer spells it in 24 tokens, plus BOS). */
    static final String PARITY_PROMPT = "Weather in Paris?";

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "needle-wb-out/demo",
            description = "Folder for the model and the reports (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--seed", defaultValue = "2026", description = "Seed of the synthetic weights (default: ${DEFAULT-VALUE}).")
    long seed;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    private final List<String> steps = new ArrayList<>();

    @Override
    public Integer call() throws WorkbenchException, IOException {
        PrintWriter say = spec.commandLine().getOut();
        Path model = out.resolve("needle2-synthetic.cact");
        Path rewritten = out.resolve("needle2-synthetic.rewritten.cact");
        java.nio.file.Files.createDirectories(out);

        long t0 = System.nanoTime();
        CactModel synthetic = SyntheticCact.released(seed, List.of(ProbeHead.CONTRASTIVE, ProbeHead.CONFIDENCE));
        step(say, "synthesize", "a random model of the released Needle 2 geometry with both probe heads", t0);

        t0 = System.nanoTime();
        CactWriter.write(synthetic, model);
        step(say, "write", model + " (atomic: temp file, fsync, rename)", t0);

        List<Path> written = new ArrayList<>(List.of(model));
        String sha;
        t0 = System.nanoTime();
        try (CactFile cact = CactFile.open(model)) {
            step(say, "read", "read into memory and validated header, codebook and all " + cact.numTensors() + " directory records", t0);
            sha = cact.sha256();
            InspectReport inspect = new InspectReport(cact, InputFile.of("model", cact));
            written.addAll(ReportFiles.write(out, "inspect", inspect.toReport(CommandLines.of(spec)), inspect.markdown(), null, model));
            say.printf(Locale.ROOT, "        %,d tensors, %,d parameters, %,d bytes, %.6f bit weighted code width%n",
                    inspect.summary().tensors(), inspect.summary().parameters(), cact.fileBytes(), inspect.summary().codeWidth());

            t0 = System.nanoTime();
            CactWriter.write(CactModel.from(cact), rewritten, model);
        }
        try (CactFile again = CactFile.open(rewritten)) {
            boolean identical = again.sha256().equals(sha);
            step(say, "rewrite", "read then write unchanged: " + (identical ? "byte-identical" : "DIFFERENT") + " (sha256 " + sha + ")", t0);
            if (!identical) throw new WorkbenchException(ErrorKind.STEP_FAILED, rewritten + ": rewriting an unedited file changed its bytes");
        }
        java.nio.file.Files.delete(rewritten);

        Path pt = out.resolve("needle2-synthetic.pt");
        Path back = out.resolve("needle2-synthetic.from-pt.cact");
        t0 = System.nanoTime();
        subcommand("convert", model.toString(), "--to", pt.toString());
        subcommand("convert", pt.toString(), "--to", back.toString(), "--base", model.toString());
        try (CactFile again = CactFile.open(back)) {
            boolean identical = again.sha256().equals(sha);
            step(say, "convert", ".cact -> PyTorch .pt -> .cact with --base: " + (identical ? "byte-identical" : "DIFFERENT"), t0);
            if (!identical) throw new WorkbenchException(ErrorKind.STEP_FAILED, back + ": the unedited .pt round trip changed the file");
        }
        written.addAll(List.of(pt, back, out.resolve("needle2-synthetic.pt.manifest.json"),
                out.resolve("needle2-synthetic.from-pt.cact.manifest.json")));

        boolean parityPassed = parity(model, out.resolve("parity"), "parity", "on the released geometry", say, written);

        t0 = System.nanoTime();
        Path studyDir = out.resolve("idempotence");
        subcommand("study", "idempotence", model.toString(), "--tensor", String.join(",", STUDIED_TENSORS), "--rounds", "6",
                "--out", studyDir.toString());
        step(say, "study", "re-quantization of " + String.join(", ", STUDIED_TENSORS) + " for 6 rounds (codes, norms, weight drift)", t0);
        written.addAll(List.of(studyDir.resolve("idempotence.json"), studyDir.resolve("idempotence.md"), studyDir.resolve("idempotence.html")));

        t0 = System.nanoTime();
        Path benchDir = out.resolve("bench");
        subcommand("bench", model.toString(), "--prompt-tokens", "32", "--new-tokens", "16", "--warmup", "1",
                "--repetitions", "2", "--out", benchDir.toString());
        step(say, "bench", "the int8 engine on the packed weights: load, prefill, decode (short run; see bench.md)", t0);
        written.addAll(List.of(benchDir.resolve("bench.json"), benchDir.resolve("bench.md")));

        toolCalls(model, out.resolve("toolcalls"), "toolcalls", say, written);

        parityPassed &= Needle3Demo.run(out, seed, this, say, written);

        Report report = new Report("demo", List.of(InputFile.of("model", model)), CommandLines.of(spec));
        var stepsNode = report.body().putArray("steps");
        steps.forEach(stepsNode::add);
        Markdown md = new Markdown().heading(1, "needle-wb demo");
        steps.forEach(s -> md.item("step", s));
        Report.appendProvenance(md, List.of(InputFile.of("model", model)));
        written.addAll(ReportFiles.write(out, "demo", report, md.toString(), null, model));

        say.println();
        say.println("Wrote:");
        for (Path p : written) say.println("  " + p);
        say.flush();
        return parityPassed ? 0 : ParityCommand.EXIT_OUT_OF_TOLERANCE;
    }


    /**
     * The parity step: the reference against the exact and int8 engines (and int8 against exact) on
     * {@link #PARITY_PROMPT}, each held to its built-in profile; a failure is one loud line naming the report.
     */
    boolean parity(Path model, Path dir, String name, String where, PrintWriter say, List<Path> written) throws WorkbenchException {
        long t0 = System.nanoTime();
        int exit = subcommand(ParityCommand.EXIT_OUT_OF_TOLERANCE, "parity", model.toString(), "--prompt", PARITY_PROMPT,
                "--engine", "exact,int8", "--out", dir.toString());
        boolean passed = exit == 0;
        step(say, name, "reference vs engine exact and int8 (and int8 vs exact), every tap, prompt \"" + PARITY_PROMPT + "\": "
                + (passed ? "PASS" : "FAIL"), t0);
        if (!passed) {
            say.println("!!! PARITY FAILED: an engine is outside its tolerance profile " + where + "; see "
                    + dir.resolve("parity.md") + " (first tap out of tolerance at the top)");
        }
        written.addAll(List.of(dir.resolve("parity.json"), dir.resolve("parity.md"), dir.resolve("parity.html")));
        return passed;
    }

    /** Two built-in tool-call cases through the exact and int8 engines, constrained. */
    void toolCalls(Path model, Path dir, String name, PrintWriter say, List<Path> written) throws WorkbenchException {
        long t0 = System.nanoTime();
        // random weights: agreement is whatever it is, so the profile only reports; the answers are valid calls all the same
        subcommand(1, "eval", "toolcalls", model.toString(), "--cases", "builtin", "--limit", "2", "--engine", "exact,int8", "--max-new", "64",
                "--think-max", "8", "--profile", "report", "--out", dir.toString());
        step(say, name, "2 built-in tool-call cases through exact and int8, constrained: agreement per call, name, argument", t0);
        written.addAll(List.of(dir.resolve("toolcalls.json"), dir.resolve("toolcalls.md"), dir.resolve("toolcalls.html")));
    }

    static void subcommand(String... args) throws WorkbenchException {
        Subcommands.run("demo", 0, args);
    }

    private static int subcommand(int alsoAccepted, String... args) throws WorkbenchException {
        return Subcommands.run("demo", alsoAccepted, args);
    }

    void step(PrintWriter say, String name, String what, long startNanos) {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        String line = String.format(Locale.ROOT, "%-10s %s (%.3f s)", name, what, seconds);
        steps.add(line);
        say.println(line);
        say.flush();
    }
}
