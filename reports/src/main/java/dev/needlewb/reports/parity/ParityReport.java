package dev.needlewb.reports.parity;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.needlewb.reports.report.Chart;
import dev.needlewb.reports.report.Charts;
import dev.needlewb.reports.report.HtmlPage;
import dev.needlewb.reports.report.InputFile;
import dev.needlewb.reports.report.Markdown;
import dev.needlewb.reports.report.Report;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * The parity comparisons as JSON (every number), a Markdown summary and a self-contained HTML
 * page with charts. Engine-vs-reference comparisons are judged and decide the verdict;
 * engine-vs-engine comparisons ({@code engine_pairs}) show the error one engine adds on top of
 * another and are not judged.
 */
public final class ParityReport {
    public static final String KIND = "parity";

    private final ParityResult result;
    private final ReferenceWeights weights;
    private final List<InputFile> inputs;
    private final Report report;

    public ParityReport(ParityResult result, ReferenceWeights weights, int[] tokens, int window, String windowText, int sinks,
                        List<InputFile> inputs, String[] commandLine) {
        this.result = result;
        this.weights = weights;
        this.inputs = inputs;
        this.report = new Report(KIND, inputs, commandLine);
        ObjectNode body = report.body();
        body.put("passed", passed());
        body.put("positions", tokens.length);
        ArrayNode ids = body.putArray("tokens");
        for (int t : tokens) ids.add(t);
        body.put("window", window);
        body.put("window_text", windowText);
        body.put("sinks", sinks);
        ObjectNode w = body.putObject("reference_weights");
        w.put("source", weights.source());
        w.put("identical_to_model", weights.identical());
        w.put("parameters", weights.tensors());
        if (!weights.identical()) {
            w.put("largest_difference_parameter", weights.largestTensor());
            w.put("largest_difference_rel_l2", weights.largestRelL2());
        }
        Comparison failing = result.failing();
        if (failing != null) body.set("first_failure", failureNode(failing, failing.firstFailure()));
        ArrayNode all = body.putArray("comparisons");
        for (Comparison c : result.againstReference()) all.add(comparisonNode(c));
        ArrayNode pairs = body.putArray("engine_pairs");
        for (Comparison c : result.enginePairs()) pairs.add(comparisonNode(c));
    }

    public boolean passed() {
        return result.passed();
    }

    public Report report() {
        return report;
    }

    private static ObjectNode failureNode(Comparison c, TapResult t) {
        ObjectNode n = Report.JSON.createObjectNode();
        n.put("engine", c.engine().label());
        n.put("reference", c.baseline());
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
        if (c.againstReference()) {
            n.put("reference", c.baseline());
            if (c.weights() != null) n.put("reference_weights", c.weights());
            n.put("profile", c.profile());
            n.put("passed", c.passed());
            TapResult first = c.firstFailure();
            if (first != null) n.set("first_failure", failureNode(c, first));
        } else {
            n.put("baseline_engine", c.baselineEngine().label());
        }
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
                tn.put("top1_near_ties", l.nearTies());
                tn.put("top5", l.top5());
                tn.put("mean_kl", l.meanKl());
                tn.put("max_kl", l.maxKl());
                tn.put("max_prob_diff", l.maxProbDiff());
            }
            if (c.againstReference()) {
                if (t.rule() != null) tn.put("rule", t.rule());
                tn.put("passed", t.passed());
                ArrayNode v = tn.putArray("violations");
                t.violations().forEach(v::add);
            }
        }
        ObjectNode growth = n.putObject("rel_l2_by_layer");
        c.relL2ByLayer().forEach((site, values) -> putSeries(growth.putArray(site), values));
        putSeries(n.putArray("worst_rel_l2_by_layer"), c.worstRelL2ByLayer());
        return n;
    }

    private static void putSeries(ArrayNode a, double[] values) {
        for (double x : values) {
            if (Double.isNaN(x)) a.addNull();
            else a.add(x);
        }
    }

    private String headline() {
        Comparison c = result.failing();
        if (c == null) return passLine(result.againstReference());
        TapResult first = c.firstFailure();
        return "FAIL: first tap out of tolerance: " + (c.weights() == null ? c.engine().label() : c.label()) + " " + first.name()
                + " (" + first.operation() + "): " + String.join(", ", first.violations());
    }

    /**
     * What a pass covers, counted: the judged taps of the comparisons against the reference, and
     * the taps no rule of their profile matched (reported, not judged).
     */
    static String passLine(List<Comparison> judged) {
        long withRule = judged.stream().flatMap(c -> c.taps().stream()).filter(t -> t.rule() != null).count();
        long without = judged.stream().mapToLong(c -> c.taps().size()).sum() - withRule;
        String engines = judged.size() + (judged.size() == 1 ? " engine" : " engines");
        if (withRule == 0) return "PASS, but nothing was judged: none of the " + without + " taps of " + engines
                + " against the reference matched a rule of its profile";
        return "PASS: all " + withRule + " judged taps of " + engines + " against the reference within tolerance"
                + (without == 0 ? "" : "; " + without + (without == 1 ? " tap" : " taps") + " matched no rule of the profile and "
                + (without == 1 ? "was" : "were") + " not judged");
    }

    private List<Comparison> all() {
        List<Comparison> all = new ArrayList<>(result.againstReference());
        all.addAll(result.enginePairs());
        return all;
    }

    private static String verdict(Comparison c) {
        return c.againstReference() ? (c.passed() ? "PASS" : "FAIL") : "not judged";
    }

    private static String title(Comparison c) {
        return c.againstReference() ? "Engine " + c.engine().label() + " vs " + c.baseline()
                : "Engine " + c.engine().label() + " vs engine " + c.baselineEngine().label() + " (the error " + c.engine().label()
                + " adds on top of " + c.baselineEngine().label() + ")";
    }

    /** One row per comparison: the figures a reader looks at first. */
    private List<List<String>> summaryRows() {
        List<List<String>> rows = new ArrayList<>();
        for (Comparison c : all()) {
            LogitMetrics l = c.logits().logits();
            TapResult worst = c.worstTap();
            rows.add(List.of(c.label(), c.profile() == null ? "-" : c.profile(), verdict(c),
                    worst.name() + " " + g(worst.metrics().relL2()), g(c.logits().metrics().relL2()),
                    String.format(Locale.ROOT, "%.4f", l.top1()), String.format(Locale.ROOT, "%.4f", l.top5()),
                    g(l.meanKl()), g(l.maxProbDiff())));
        }
        return rows;
    }

    private static final List<String> SUMMARY_HEADERS = List.of("comparison", "profile", "verdict", "worst tap (rel L2)",
            "logits rel L2", "top-1", "top-5", "mean KL", "max prob diff");

    public String markdown() {
        Markdown md = new Markdown();
        md.heading(1, "Parity: " + (passed() ? "PASS" : "FAIL"));
        md.paragraph(headline());
        md.item("reference weights", weights.describe());
        md.item("window", report.body().path("window_text").asText());
        md.blank();
        md.table(SUMMARY_HEADERS.stream().map(h -> h.equals("comparison") || h.equals("profile") || h.equals("verdict")
                || h.startsWith("worst") ? h : ">" + h).toList(), summaryRows());
        for (Comparison c : all()) {
            md.heading(2, title(c) + ": " + verdict(c));
            if (c.againstReference()) md.item("profile", c.profile());
            md.item("positions", c.positions());
            LogitMetrics l = c.logits().logits();
            md.item("logits", String.format(Locale.ROOT, "top-1 %.4f%s, top-5 overlap %.4f, mean KL %.3g, max KL %.3g, max prob diff %.3g",
                    l.top1(), l.nearTies() == 0 ? "" : " (" + l.nearTies() + " of the flips near ties of the reference)", l.top5(), l.meanKl(),
                    l.maxKl(), l.maxProbDiff()));
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
            String verdict = !c.againstReference() ? "-" : t.rule() == null ? "not judged" : t.passed() ? "ok"
                    : "FAIL: " + String.join(", ", t.violations());
            rows.add(List.of(t.name(), g(m.maxAbs()), g(m.rms()), g(m.relL2()), String.format(Locale.ROOT, "%.9f", m.cosine()),
                    String.format(Locale.ROOT, "%.3g", m.maxUlps()), verdict));
        }
        return rows;
    }

    /** The largest relative L2 of any tap per layer, one line per comparison, on a log axis. */
    Chart errorGrowth() {
        Map<String, double[]> overview = new LinkedHashMap<>();
        for (Comparison c : all()) overview.put(c.label(), c.worstRelL2ByLayer());
        int layerCount = all().stream().mapToInt(Comparison::layers).max().orElse(0);
        return Charts.lines("Largest relative L2 of any tap, by layer", "layer", "relative L2", layers(layerCount), overview,
                Charts.Scale.LOG);
    }

    /** Layer indices 0 .. count - 1 as chart points. */
    private static List<String> layers(int count) {
        return IntStream.range(0, count).mapToObj(Integer::toString).toList();
    }

    private static String g(double v) {
        return String.format(Locale.ROOT, "%.3g", v);
    }

    public String html() {
        HtmlPage page = new HtmlPage("Parity: " + (passed() ? "PASS" : "FAIL"));
        page.verdict(passed(), headline());
        page.paragraph("Reference weights: " + weights.describe());
        page.table(SUMMARY_HEADERS, summaryRows());
        if (all().stream().anyMatch(c -> c.layers() > 0)) page.chart("error growth of every comparison", errorGrowth());
        for (Comparison c : all()) {
            String label = c.label();
            page.heading(2, title(c));
            if (c.againstReference()) page.verdict(c.passed(), verdict(c) + " under profile " + c.profile());
            else page.paragraph("Reported, not judged: both sides are engines.");
            Map<String, double[]> growth = c.relL2ByLayer();
            if (!growth.isEmpty()) {
                page.chart("relative L2 error per layer (" + label + ")", Charts.lines("Relative L2 error by layer: " + label,
                        "layer", "relative L2", layers(c.layers()), growth, Charts.Scale.LOG));
                if (c.againstReference()) {
                    List<String> layers = IntStream.range(0, c.layers()).mapToObj(i -> "L" + i).toList();
                    page.chart("tap by layer heatmap (" + label + ")", Charts.heatmap("Relative L2, site x layer: " + label,
                            "relative L2", List.copyOf(growth.keySet()), layers, growth.values().toArray(double[][]::new)));
                }
            }
            double[] eng = new double[c.lastEngineLogits().length];
            for (int i = 0; i < eng.length; i++) eng[i] = c.lastEngineLogits()[i];
            String baseAxis = c.againstReference() ? "reference" : "engine " + c.baselineEngine().label();
            page.chart("logit scatter, last position (" + label + ")", Charts.scatter("Logits at the last position: " + label,
                    baseAxis, "engine " + c.engine().label(), c.lastBaselineLogits(), eng));
            page.table(List.of("tap", "max abs", "RMS", "rel L2", "cosine", "max ulps", "verdict"), rows(c));
        }
        return page.render();
    }
}
