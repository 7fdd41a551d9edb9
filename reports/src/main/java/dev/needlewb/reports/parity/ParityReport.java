package dev.needlewb.reports.parity;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.needlewb.reports.report.Charts;
import dev.needlewb.reports.report.HtmlPage;
import dev.needlewb.reports.report.InputFile;
import dev.needlewb.reports.report.Markdown;
import dev.needlewb.reports.report.Report;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;

/** The parity comparisons as JSON (every number), a Markdown summary and a self-contained HTML page with charts. */
public final class ParityReport {
    public static final String KIND = "parity";

    private final List<Comparison> comparisons;
    private final List<InputFile> inputs;
    private final Report report;

    public ParityReport(List<Comparison> comparisons, int[] tokens, int window, int sinks, List<InputFile> inputs, String[] commandLine) {
        this.comparisons = List.copyOf(comparisons);
        this.inputs = inputs;
        this.report = new Report(KIND, inputs, commandLine);
        ObjectNode body = report.body();
        body.put("passed", passed());
        body.put("positions", tokens.length);
        ArrayNode ids = body.putArray("tokens");
        for (int t : tokens) ids.add(t);
        body.put("window", window);
        body.put("sinks", sinks);
        TapResult first = firstFailure();
        if (first != null) body.set("first_failure", failureNode(failingComparison(), first));
        ArrayNode all = body.putArray("comparisons");
        for (Comparison c : comparisons) all.add(comparisonNode(c));
    }

    public boolean passed() {
        return comparisons.stream().allMatch(Comparison::passed);
    }

    public Report report() {
        return report;
    }

    private Comparison failingComparison() {
        return comparisons.stream().filter(c -> !c.passed()).findFirst().orElse(null);
    }

    private TapResult firstFailure() {
        Comparison c = failingComparison();
        return c == null ? null : c.firstFailure();
    }

    private static ObjectNode failureNode(Comparison c, TapResult t) {
        ObjectNode n = Report.JSON.createObjectNode();
        n.put("engine", c.engine().label());
        n.put("tap", t.name());
        n.put("operation", t.operation());
        n.put("rule", t.rule());
        ArrayNode v = n.putArray("violations");
        t.violations().forEach(v::add);
        return n;
    }

    private static ObjectNode comparisonNode(Comparison c) {
        ObjectNode n = Report.JSON.createObjectNode();
        n.put("engine", c.engine().label());
        n.put("reference", c.engine().referenceRun());
        n.put("profile", c.profile());
        n.put("passed", c.passed());
        TapResult first = c.firstFailure();
        if (first != null) n.set("first_failure", failureNode(c, first));
        ArrayNode taps = n.putArray("taps");
        for (TapResult t : c.taps()) {
            ObjectNode tn = taps.addObject();
            tn.put("name", t.name());
            if (t.layer() >= 0) tn.put("layer", t.layer());
            tn.put("site", t.site());
            tn.put("operation", t.operation());
            ArrayNode shape = tn.putArray("shape");
            for (int s : t.shape()) shape.add(s);
            TapMetrics m = t.metrics();
            tn.put("max_abs", m.maxAbs());
            tn.put("rms", m.rms());
            tn.put("rel_l2", m.relL2());
            tn.put("cosine", m.cosine());
            tn.put("max_ulps", m.maxUlps());
            if (t.logits() != null) {
                LogitMetrics l = t.logits();
                tn.put("top1", l.top1());
                tn.put("top5", l.top5());
                tn.put("mean_kl", l.meanKl());
                tn.put("max_kl", l.maxKl());
                tn.put("max_prob_diff", l.maxProbDiff());
            }
            if (t.rule() != null) tn.put("rule", t.rule());
            tn.put("passed", t.passed());
            ArrayNode v = tn.putArray("violations");
            t.violations().forEach(v::add);
        }
        ObjectNode growth = n.putObject("rel_l2_by_layer");
        c.relL2ByLayer().forEach((site, values) -> {
            ArrayNode a = growth.putArray(site);
            for (double x : values) {
                if (Double.isNaN(x)) a.addNull();
                else a.add(x);
            }
        });
        return n;
    }

    private String headline() {
        TapResult first = firstFailure();
        if (first == null) return "PASS: every tap within tolerance";
        return "FAIL: first tap out of tolerance: " + failingComparison().engine().label() + " " + first.name()
                + " (" + first.operation() + "): " + String.join(", ", first.violations());
    }

    public String markdown() {
        Markdown md = new Markdown();
        md.heading(1, "Parity: " + (passed() ? "PASS" : "FAIL"));
        md.paragraph(headline());
        for (Comparison c : comparisons) {
            md.heading(2, "Engine " + c.engine().label() + " vs " + c.engine().referenceRun() + ": " + (c.passed() ? "PASS" : "FAIL"));
            md.item("profile", c.profile());
            md.item("positions", c.positions());
            TapResult logits = c.logits();
            LogitMetrics l = logits.logits();
            md.item("logits", String.format(Locale.ROOT, "top-1 %.4f, top-5 overlap %.4f, mean KL %.3g, max KL %.3g, max prob diff %.3g",
                    l.top1(), l.top5(), l.meanKl(), l.maxKl(), l.maxProbDiff()));
            md.blank();
            Map<String, double[]> growth = c.relL2ByLayer();
            if (!growth.isEmpty()) {
                md.paragraph("Relative L2 error by layer:");
                List<String> headers = new ArrayList<>(List.of("site"));
                IntStream.range(0, c.layers()).forEach(i -> headers.add(">L" + i));
                List<List<String>> table = new ArrayList<>();
                growth.forEach((site, values) -> {
                    List<String> row = new ArrayList<>(List.of(site));
                    for (double v : values) row.add(Double.isNaN(v) ? "" : g(v));
                    table.add(row);
                });
                md.table(headers, table);
            }
            md.table(List.of("tap", ">max abs", ">RMS", ">rel L2", ">cosine", ">max ulps", "verdict"), rows(c));
        }
        Report.appendProvenance(md, inputs);
        return md.toString();
    }

    private static List<List<String>> rows(Comparison c) {
        List<List<String>> rows = new ArrayList<>();
        for (TapResult t : c.taps()) {
            TapMetrics m = t.metrics();
            rows.add(List.of(t.name(), g(m.maxAbs()), g(m.rms()), g(m.relL2()), String.format(Locale.ROOT, "%.9f", m.cosine()),
                    String.format(Locale.ROOT, "%.3g", m.maxUlps()),
                    t.rule() == null ? "not judged" : t.passed() ? "ok" : "FAIL: " + String.join(", ", t.violations())));
        }
        return rows;
    }

    private static String g(double v) {
        return String.format(Locale.ROOT, "%.3g", v);
    }

    public String html() {
        HtmlPage page = new HtmlPage("Parity: " + (passed() ? "PASS" : "FAIL"));
        page.verdict(passed(), headline());
        for (Comparison c : comparisons) {
            String label = c.engine().label();
            page.heading(2, "Engine " + label + " vs " + c.engine().referenceRun());
            page.verdict(c.passed(), (c.passed() ? "PASS" : "FAIL") + " under profile " + c.profile());
            Map<String, double[]> growth = c.relL2ByLayer();
            if (!growth.isEmpty()) {
                page.chart("relative L2 error per layer (" + label + ")",
                        Charts.lines("Relative L2 error by layer: " + label, "layer", "relative L2", growth, true));
                List<String> layers = IntStream.range(0, c.layers()).mapToObj(i -> "L" + i).toList();
                page.chart("tap by layer heatmap (" + label + ")", Charts.heatmap("log10 relative L2, site x layer: " + label,
                        List.copyOf(growth.keySet()), layers, growth.values().toArray(double[][]::new)));
            }
            double[] eng = new double[c.lastEngineLogits().length];
            for (int i = 0; i < eng.length; i++) eng[i] = c.lastEngineLogits()[i];
            page.chart("logit scatter, last position (" + label + ")", Charts.scatter("Logits at the last position: " + label,
                    "reference", "engine " + label, c.lastReferenceLogits(), eng));
            page.table(List.of("tap", "max abs", "RMS", "rel L2", "cosine", "max ulps", "verdict"), rows(c));
        }
        return page.render();
    }
}
