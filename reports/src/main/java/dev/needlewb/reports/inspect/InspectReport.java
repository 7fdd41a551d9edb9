package dev.needlewb.reports.inspect;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.needlewb.converter.cact.CactDType;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactNotes;
import dev.needlewb.converter.cact.CactSummary;
import dev.needlewb.converter.cact.NonFiniteTensor;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.reports.convert.ManifestCheck;
import dev.needlewb.reports.report.InputFile;
import dev.needlewb.reports.report.Markdown;
import dev.needlewb.reports.report.Report;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** What {@code needle-wb inspect} reports about a validated {@code .cact}: geometry, every tensor, size statistics. */
public final class InspectReport {
    private final CactFile file;
    private final CactSummary summary;
    private final InputFile input;
    private final List<NonFiniteTensor> nonFinite;
    private final ManifestCheck manifest;

    public InspectReport(CactFile file, InputFile input) {
        this.file = file;
        this.summary = CactSummary.of(file);
        this.input = input;
        this.nonFinite = file.nonFinite();
        this.manifest = ManifestCheck.of(input.path(), input.sha256());
    }

    /** Whether every stored float is finite and a manifest beside the file, if any, describes it. */
    public boolean passed() {
        return nonFinite.isEmpty() && manifest.consistent();
    }

    public CactSummary summary() {
        return summary;
    }

    public Report toReport(String[] commandLine) {
        Report report = new Report("inspect", List.of(input), commandLine);
        ObjectNode body = report.body();
        body.put("file", input.path().toString());
        body.put("file_bytes", file.fileBytes());
        body.put("sha256", file.sha256());
        body.put("generation", file.geometry().generation().displayName());
        body.put("tag", Generation.hex(file.geometry().generation().tag()));
        body.set("geometry", Report.JSON.valueToTree(file.generation().header().fields(file.geometry())));
        ArrayNode notes = body.putArray("notes");
        CactNotes.of(file).forEach(notes::add);
        ObjectNode m = body.putObject("manifest");
        m.put("path", manifest.manifest().toString());
        m.put("status", manifest.status().name().toLowerCase(Locale.ROOT));
        if (manifest.recorded() != null) m.put("recorded_sha256", manifest.recorded());
        ArrayNode bad = body.putArray("non_finite");
        for (NonFiniteTensor t : nonFinite) {
            ObjectNode n = bad.addObject();
            n.put("index", t.index());
            n.put("name", t.name());
            n.put("part", t.part().label());
            n.put("count", t.count().count());
            n.put("first_element", t.count().firstElement());
            n.put("first_offset", t.firstOffset());
            n.put("first_value", Float.toString(t.count().firstValue()));
        }
        ArrayNode cb = body.putArray("codebook");
        for (float v : file.codebook()) cb.add(v);
        ArrayNode tensors = body.putArray("tensors");
        for (TensorRecord r : file.tensors()) {
            ObjectNode t = tensors.addObject();
            t.put("index", r.index());
            t.put("name", r.name());
            t.put("dtype", r.dtype().name());
            t.put("bits", r.bits());
            t.put("group", r.group());
            ArrayNode shape = t.putArray("shape");
            for (long d : r.shape()) shape.add(d);
            t.put("parameters", r.elementCount());
            t.put("bytes", r.nbytes());
            t.put("offset", r.offset());
        }
        ObjectNode cats = body.putObject("categories");
        for (CactSummary.Category c : CactSummary.Category.values()) {
            CactSummary.Counts n = summary.get(c);
            if (n.tensors() == 0) continue;
            ObjectNode o = cats.putObject(c.name());
            o.put("tensors", n.tensors());
            o.put("parameters", n.parameters());
            o.put("bytes", n.bytes());
        }
        ObjectNode totals = body.putObject("totals");
        totals.put("tensors", summary.tensors());
        totals.put("parameters", summary.parameters());
        totals.put("weighted_code_width_bits", summary.codeWidth());
        totals.put("payload_bits_per_parameter", summary.payloadBitsPerParameter());
        totals.put("file_bits_per_parameter", summary.fileBitsPerParameter());
        return report;
    }

    public String markdown() {
        Markdown md = new Markdown().heading(1, "Inspect " + input.path().getFileName());
        md.item("file", "`" + input.path() + "`")
                .item("bytes", fmt(file.fileBytes()))
                .item("sha256", "`" + file.sha256() + "`")
                .item("generation", file.geometry().generation().displayName() + " (tag " + Generation.hex(file.geometry().generation().tag()) + ")")
                .item("manifest", manifest.status() == ManifestCheck.Status.NONE ? "none"
                        : "`" + manifest.manifest().getFileName() + "` " + manifest.detail())
                .blank();
        if (!nonFinite.isEmpty()) {
            md.paragraph("**Not finite:** " + nonFinite.size() + " tensor" + (nonFinite.size() == 1 ? " holds" : "s hold")
                    + " NaN or infinity (listed below); every command that computes with the weights refuses this file.");
        }
        md.heading(2, "Geometry");
        file.generation().header().fields(file.geometry()).forEach((k, v) -> md.item(k, v instanceof int[] a ? Arrays.toString(a) : v));
        md.blank();
        List<String> notes = CactNotes.of(file);
        if (!notes.isEmpty()) {
            md.heading(2, "Notes");
            notes.forEach(md::paragraph);
        }
        if (!nonFinite.isEmpty()) {
            md.heading(2, "Non-finite values");
            List<List<String>> bad = new ArrayList<>();
            for (NonFiniteTensor t : nonFinite) {
                bad.add(List.of(Integer.toString(t.index()), t.name(), t.part().label() + "s", fmt(t.count().count()),
                        fmt(t.count().firstElement()), Float.toString(t.count().firstValue()), fmt(t.firstOffset())));
            }
            md.table(List.of(">index", "name", "floats", ">not finite", ">first at", "first value", ">first offset"), bad);
        }
        md.heading(2, "Summary");
        List<List<String>> rows = new ArrayList<>();
        for (CactSummary.Category c : CactSummary.Category.values()) {
            CactSummary.Counts n = summary.get(c);
            if (n.tensors() == 0) continue;
            rows.add(List.of(c.name(), fmt(n.tensors()), c == CactSummary.Category.RAW ? "-" : fmt(n.parameters()), fmt(n.bytes())));
        }
        rows.add(List.of("total", fmt(summary.tensors()), fmt(summary.parameters()), fmt(file.fileBytes()) + " (file)"));
        md.table(List.of("category", ">tensors", ">parameters", ">bytes"), rows);
        md.item("weighted code width of quantized parameters", String.format(Locale.ROOT, "%.6f bit", summary.codeWidth()))
                .item("numeric payload", String.format(Locale.ROOT, "%.6f bits per parameter", summary.payloadBitsPerParameter()))
                .item("whole file", String.format(Locale.ROOT, "%.6f bits per parameter", summary.fileBitsPerParameter()))
                .blank();
        md.heading(2, "Tensors");
        List<List<String>> trs = new ArrayList<>();
        for (TensorRecord r : file.tensors()) {
            trs.add(List.of(Integer.toString(r.index()), r.name(), r.dtype().name(),
                    r.dtype() == CactDType.CQ ? (r.isTernary() ? "t" : Integer.toString(r.bits())) : "-",
                    r.dtype() == CactDType.CQ ? Integer.toString(r.group()) : "-",
                    Arrays.toString(r.shape()), fmt(r.elementCount()), fmt(r.nbytes()), fmt(r.offset())));
        }
        md.table(List.of(">index", "name", "dtype", ">bits", ">group", "shape", ">parameters", ">bytes", ">offset"), trs);
        Report.appendProvenance(md, List.of(input));
        return md.toString();
    }

    private static String fmt(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }
}
