package dev.needlewb.cli;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.OutputSet;
import dev.needlewb.converter.convert.ConvertRequest;
import dev.needlewb.converter.convert.Converter;
import dev.needlewb.converter.convert.Format;
import dev.needlewb.reports.convert.ConversionManifest;
import dev.needlewb.reports.report.InputFile;
import dev.needlewb.reports.report.Markdown;
import dev.needlewb.reports.report.Report;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "convert", mixinStandardHelpOptions = true,
        description = {"Convert between Flax checkpoints (.pkl), .cact and state dicts (.pt, .safetensors); formats follow from the file names.",
                "Writes OUTPUT and OUTPUT.manifest.json/.md (SHA-256 of every file, per-tensor transform and quantization statistics) as one unit:",
                "all three appear together or the previous ones stay; a second convert to the same OUTPUT is refused while one runs."})
final class ConvertCommand implements Callable<Integer> {
    @Parameters(paramLabel = "INPUT", description = "The file to convert.")
    Path input;

    @Option(names = "--to", required = true, paramLabel = "OUTPUT", description = "The file to write.")
    Path output;

    @Option(names = "--bits-map", paramLabel = "SPEC",
            description = "CQ widths of a fresh .cact: e.g. embedding=4,mhc=4,default=2 or one width (2, 3, 4, 1.58). Default: the checkpoint's weight_bits, else 4.")
    String bitsMap;

    @Option(names = "--group", paramLabel = "64|128",
            description = "CQ group of a fresh .cact (upstream build_export's group argument; default 128).")
    Integer group;

    @Option(names = "--lora", paramLabel = "ADAPTER.pkl|.safetensors", description = "Merge this upstream LoRA adapter into the checkpoint input first.")
    Path lora;

    @Option(names = "--base", paramLabel = "ORIGINAL.cact",
            description = "For a .cact output: take header, codebook and tokenizer from this file and keep every blob whose values did not change.")
    Path base;

    @Option(names = "--tokenizer", paramLabel = "tok.model|FILE.cact", description = "The tokenizer of a fresh .cact.")
    Path tokenizer;

    @Option(names = "--config", paramLabel = "CKPT.pkl|CONFIG.json",
            description = "A checkpoint giving config, step and run for a checkpoint output, the geometry of a state-dict input without --base, or (a checkpoint or JSON config) the geometry of a legacy 0x05E12A82 .cact input to upgrade.")
    Path config;

    @Option(names = "--dtype", paramLabel = "f32|f16", description = "Tensor dtype of a state-dict or checkpoint output (default: as the source holds it; .cact sources give f32).")
    String dtype;

    @Option(names = "--dry-run", description = "Print the plan (each tensor, its transform and quantization, the output size) and write nothing.")
    boolean dryRun;

    @Option(names = "--allow-extra-params", description = "Read checkpoints with parameters the model does not use (they are not converted).")
    boolean allowExtraParams;

    @picocli.CommandLine.Mixin
    NonFiniteOption nonFinite;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws WorkbenchException, IOException {
        ConvertRequest request = new ConvertRequest(input, output, bitsMap, lora, base, tokenizer, config, dtype, allowExtraParams, group,
                nonFinite.policy());
        PrintWriter out = spec.commandLine().getOut();
        if (dryRun) {
            out.print(plan(Converter.plan(request)));
            out.flush();
            return 0;
        }
        Path target = output.toAbsolutePath().normalize();
        Path dir = target.getParent();
        String manifestName = target.getFileName() + ".manifest";
        Converter.Result result;
        // inputs are read and checked before the lock is taken: a refused input leaves nothing beside the output
        try (Converter.Loaded conversion = Converter.load(request);
             OutputSet files = OutputSet.begin(List.of(target, dir.resolve(manifestName + ".json"), dir.resolve(manifestName + ".md")))) {
            try (Progress progress = Progress.start("convert", 1000)) {
                result = conversion.run((done, total) -> progress.update(done * 1000 / Math.max(1, total)), files);
            }
            List<InputFile> inputs = new ArrayList<>();
            inputs.add(InputFile.of("input", input));
            if (lora != null) inputs.add(InputFile.of("lora", lora));
            if (base != null) inputs.add(InputFile.of("base", base));
            if (tokenizer != null) inputs.add(InputFile.of("tokenizer", tokenizer));
            if (config != null) inputs.add(InputFile.of("config", config));
            ConversionManifest manifest = new ConversionManifest(result, inputs, InputFile.of("output", files.staged(target)).at(target));
            ReportFiles.stage(files, dir, manifestName, manifest.toReport(CommandLines.of(spec)), manifest.markdown(), request.inputs());
            files.commit();
        }
        long rewritten = result.tensors().stream().filter(t -> !t.keptFromBase()).count();
        out.printf("wrote %s: %d tensors (%d %s), manifest %s.manifest.json%n", output, result.tensors().size(), rewritten,
                base != null ? "re-encoded" : "written", output.getFileName());
        out.flush();
        return 0;
    }

    private static String plan(Converter.Plan plan) {
        List<List<String>> rows = new ArrayList<>();
        for (Converter.PlanRow r : plan.rows()) {
            rows.add(List.of(r.name(), r.writtenAs(), r.transform().name(), r.quantization(), Long.toString(r.bytes())));
        }
        return new Markdown().heading(1, "Plan: " + plan.from().label() + " -> " + plan.to().label() + " (dry run, nothing written)")
                .item("tensors", plan.rows().size())
                .item(plan.to() == Format.CACT ? "output bytes" : "tensor data bytes", plan.outputBytes())
                .blank()
                .table(List.of("tensor", "written as", "transform", "quantization", ">bytes"), rows)
                .toString();
    }
}
