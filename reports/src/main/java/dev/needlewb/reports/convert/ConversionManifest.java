package dev.needlewb.reports.convert;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.needlewb.converter.convert.Converter;
import dev.needlewb.converter.convert.TensorConversion;
import dev.needlewb.reports.report.InputFile;
import dev.needlewb.reports.report.Markdown;
import dev.needlewb.reports.report.Report;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The conversion manifest: inputs' and output's SHA-256, and per tensor its transform,
 * quantization, whether a base blob was kept, the max abs / RMS difference of the written values
 * from the source values, and CQ codes / norms changed against a base.
 */
public final class ConversionManifest {
    private final Converter.Result result;
    private final List<InputFile> inputs;
    private final InputFile output;

    public ConversionManifest(Converter.Result result, List<InputFile> inputs, InputFile output) {
        this.result = result;
        this.inputs = List.copyOf(inputs);
        this.output = output;
    }

    public Report toReport(String[] commandLine) {
        Report report = new Report("conversion", inputs, commandLine);
        ObjectNode body = report.body();
        body.put("from", result.from().name().toLowerCase(Locale.ROOT));
        body.put("to", result.to().name().toLowerCase(Locale.ROOT));
        ObjectNode out = body.putObject("output");
        out.put("path", output.path().toString());
        out.put("bytes", output.bytes());
        out.put("sha256", output.sha256());
        body.put("tensors_rewritten", rewritten().size());
        ArrayNode list = body.putArray("tensors");
        for (TensorConversion t : result.tensors()) {
            ObjectNode n = list.addObject();
            n.put("name", t.name());
            n.put("transform", t.transform().name());
            n.put("quantization", t.quantization());
            n.put("kept_from_base", t.keptFromBase());
            n.put("max_abs_change", t.maxAbsChange());
            n.put("rms_change", t.rmsChange());
            if (t.codesChanged() >= 0) n.put("codes_changed", t.codesChanged());
            if (t.normsChanged() >= 0) n.put("norms_changed", t.normsChanged());
        }
        return report;
    }

    /** Tensors a base run re-encoded (all of them when there is no base). */
    private List<TensorConversion> rewritten() {
        return result.tensors().stream().filter(t -> !t.keptFromBase()).toList();
    }

    public String markdown() {
        Markdown md = new Markdown().heading(1, "Conversion " + result.from().label() + " -> " + result.to().label());
        md.item("output", "`" + output.path() + "` (" + output.bytes() + " bytes, sha256 `" + output.sha256() + "`)");
        long kept = result.tensors().stream().filter(TensorConversion::keptFromBase).count();
        md.item("tensors", result.tensors().size() + (kept > 0 ? " (" + kept + " kept byte for byte from the base)" : ""));
        md.blank();
        List<List<String>> rows = new ArrayList<>();
        for (TensorConversion t : rewritten()) {
            rows.add(List.of(t.name(), t.transform().name(), t.quantization(), change(t.maxAbsChange()), change(t.rmsChange()),
                    t.codesChanged() < 0 ? "-" : Long.toString(t.codesChanged()),
                    t.normsChanged() < 0 ? "-" : Long.toString(t.normsChanged())));
        }
        md.heading(2, kept > 0 ? "Re-encoded tensors" : "Tensors");
        if (result.tensors().isEmpty()) md.paragraph("None: the output holds no tensors.");
        else if (rows.isEmpty()) md.paragraph("None: every tensor kept its base bytes.");
        else md.table(List.of("tensor", "transform", "quantization", ">max abs change", ">RMS change", ">codes changed", ">norms changed"), rows);
        Report.appendProvenance(md, inputs);
        return md.toString();
    }

    /** Exactly 0 as "0" (the value is bit for bit the source's), anything else with three significant digits. */
    private static String change(double v) {
        return v == 0 ? "0" : String.format(Locale.ROOT, "%.3g", v);
    }
}
