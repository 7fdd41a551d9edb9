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

/**
 * Parity over many prompts and models: a row per (model, engine, prompt) with its verdict, worst tap
 * and first tap out of tolerance, and a summary per model and engine, as JSON, Markdown and HTML.
 * Every sentence is built from the rows' numbers.
 */
public final class ParitySweepReport {
    public static final String KIND = "parity_sweep";

    /** A prompt of the sweep: its id and the line of the prompts file it came from. */
    public record Prompt(String id, int line) {}

    /** A model of the sweep: its path as given and its generation's name. */
    public record Model(String path, String generation) {}

    /** One engine on one prompt of one model ({@code model} and {@code prompt} index the sweep's lists). */
    public record Row(int model, String engine, int prompt, PromptParity result) {}

    /** The rows of one model and engine, and what they add up to. */
    record Summary(int model, String engine, List<Row> rows) {
        long passed() {
            return rows.stream().filter(r -> r.result().passed()).count();
        }

        /** The row with the largest worst-tap relative L2 (the first of equals). */
        Row worst() {
            Row worst = rows.getFirst();
            for (Row r : rows) if (r.result().worstRelL2() > worst.result().worstRelL2()) worst = r;
            return worst;
        }

        String profiles() {
            return String.join(", ", rows.stream().map(r -> r.result().profile()).distinct().toList());
        }

        Row firstFailing() {
            return rows.stream().filter(r -> !r.result().passed()).findFirst().orElse(null);
        }
    }

    private final List<Model> models;
    private final List<String> engines;
    private final List<Prompt> prompts;
    private final List<Row> rows;
    private final List<Summary> summaries;
    private final List<InputFile> inputs;
    private final Report report;

    public ParitySweepReport(List<Model> models, List<String> engines, List<Prompt> prompts, List<Row> rows, boolean quant, double wallSeconds,
                             List<InputFile> inputs, String[] commandLine) {
        this.models = List.copyOf(models);
        this.engines = List.copyOf(engines);
        this.prompts = List.copyOf(prompts);
        this.rows = List.copyOf(rows);
        this.inputs = List.copyOf(inputs);
        Map<String, Summary> byModelEngine = new LinkedHashMap<>();
        for (Row r : rows) {
            byModelEngine.computeIfAbsent(r.model() + "\u0000" + r.engine(), k -> new Summary(r.model(), r.engine(), new ArrayList<>())).rows().add(r);
        }
        this.summaries = List.copyOf(byModelEngine.values());
        this.report = new Report(KIND, inputs, commandLine);
        ObjectNode body = report.body();
        body.put("passed", passed());
        body.put("quant", quant);
        body.put("wall_s", wallSeconds);
        ArrayNode m = body.putArray("models");
        for (Model model : models) m.addObject().put("path", model.path()).put("generation", model.generation());
        ArrayNode e = body.putArray("engines");
        this.engines.forEach(e::add);
        ArrayNode p = body.putArray("prompts");
        for (Prompt prompt : prompts) p.addObject().put("id", prompt.id()).put("line", prompt.line());
        ArrayNode s = body.putArray("summary");
        for (Summary sum : summaries) s.add(summaryNode(sum));
        ArrayNode all = body.putArray("rows");
        for (Row r : rows) all.add(rowNode(r));
    }

    public boolean passed() {
        return rows.stream().allMatch(r -> r.result().passed());
    }

    public Report report() {
        return report;
    }

    private ObjectNode summaryNode(Summary s) {
        ObjectNode n = Report.JSON.createObjectNode();
        n.put("model", models.get(s.model()).path());
        n.put("engine", s.engine());
        n.put("profiles", s.profiles());
        n.put("prompts", s.rows().size());
        n.put("passed", s.passed());
        n.put("failed", s.rows().size() - s.passed());
        Row worst = s.worst();
        n.put("worst_prompt", prompts.get(worst.prompt()).id());
        n.put("worst_tap", worst.result().worstTap());
        n.put("worst_rel_l2", worst.result().worstRelL2());
        Row failing = s.firstFailing();
        if (failing != null) n.put("first_failing_prompt", prompts.get(failing.prompt()).id());
        n.put("text", sentence(s));
        return n;
    }

    private ObjectNode rowNode(Row r) {
        PromptParity p = r.result();
        ObjectNode n = Report.JSON.createObjectNode();
        n.put("model", models.get(r.model()).path());
        n.put("engine", r.engine());
        n.put("prompt", prompts.get(r.prompt()).id());
        n.put("positions", p.positions());
        n.put("profile", p.profile());
        n.put("passed", p.passed());
        n.put("judged_taps", p.judgedTaps());
        n.putObject("worst_tap").put("name", p.worstTap()).put("rel_l2", p.worstRelL2());
        n.putObject("logits").put("rel_l2", p.logitsRelL2()).put("top1", p.top1()).put("mean_kl", p.meanKl()).put("max_prob_diff", p.maxProbDiff());
        if (p.firstFailure() != null) {
            ObjectNode f = n.putObject("first_failure");
            f.put("tap", p.firstFailure().tap());
            f.put("operation", p.firstFailure().operation());
            ArrayNode v = f.putArray("violations");
            p.firstFailure().violations().forEach(v::add);
        }
        return n;
    }

    /** One model and engine in a sentence: how many prompts pass, the worst one, the first failing one. */
    private String sentence(Summary s) {
        Row worst = s.worst();
        String text = String.format(Locale.ROOT, "%s, engine %s: %d of %d %s within tolerance; largest error on prompt %s (%s, relative L2 %s)",
                models.get(s.model()).path(), s.engine(), s.passed(), s.rows().size(), s.rows().size() == 1 ? "prompt" : "prompts",
                prompts.get(worst.prompt()).id(), worst.result().worstTap(), g(worst.result().worstRelL2()));
        Row failing = s.firstFailing();
        if (failing == null) return text;
        return text + "; first out of tolerance: prompt " + prompts.get(failing.prompt()).id() + ", " + failureText(failing.result().firstFailure());
    }

    private static String failureText(PromptParity.Failure f) {
        return f.tap() + " (" + f.operation() + "): " + String.join(", ", f.violations());
    }

    /** The verdict of the whole sweep, counted. */
    public String headline() {
        long failed = rows.stream().filter(r -> !r.result().passed()).count();
        long judged = rows.stream().mapToLong(r -> r.result().judgedTaps()).sum();
        String size = String.format(Locale.ROOT, "%d prompt %s (%d %s x %d %s x %d %s)", rows.size(), rows.size() == 1 ? "run" : "runs",
                models.size(), models.size() == 1 ? "model" : "models", engines.size(), engines.size() == 1 ? "engine" : "engines", prompts.size(), prompts.size() == 1 ? "prompt" : "prompts");
        if (failed == 0) {
            if (judged == 0) return "PASS, but nothing was judged: no tap of the " + size + " matched a rule of its profile";
            return "PASS: all " + judged + " judged taps of the " + size + " within tolerance";
        }
        Row first = rows.stream().filter(r -> !r.result().passed()).findFirst().orElseThrow();
        return "FAIL: " + failed + " of the " + size + " out of tolerance; the first: " + models.get(first.model()).path() + ", engine "
                + first.engine() + ", prompt " + prompts.get(first.prompt()).id() + ", " + failureText(first.result().firstFailure());
    }

    private static final List<String> SUMMARY_HEADERS = List.of("model", "engine", "profile", ">passed", ">failed", "worst prompt",
            "worst tap", ">worst rel L2");
    private static final List<String> ROW_HEADERS = List.of("model", "engine", "prompt", ">positions", "verdict", "worst tap", ">rel L2",
            ">logits rel L2", ">top-1", ">mean KL", "first tap out of tolerance");

    private List<List<String>> summaryRows() {
        List<List<String>> out = new ArrayList<>();
        for (Summary s : summaries) {
            Row worst = s.worst();
            out.add(List.of(models.get(s.model()).path(), s.engine(), s.profiles(), Long.toString(s.passed()),
                    Long.toString(s.rows().size() - s.passed()), prompts.get(worst.prompt()).id(), worst.result().worstTap(),
                    g(worst.result().worstRelL2())));
        }
        return out;
    }

    private List<List<String>> rowRows() {
        List<List<String>> out = new ArrayList<>();
        for (Row r : rows) {
            PromptParity p = r.result();
            out.add(List.of(models.get(r.model()).path(), r.engine(), prompts.get(r.prompt()).id(), Integer.toString(p.positions()),
                    p.passed() ? "PASS" : "FAIL", p.worstTap(), g(p.worstRelL2()), g(p.logitsRelL2()), String.format(Locale.ROOT, "%.4f", p.top1()),
                    g(p.meanKl()), p.firstFailure() == null ? "-" : failureText(p.firstFailure())));
        }
        return out;
    }

    private static List<String> plain(List<String> headers) {
        return headers.stream().map(h -> h.startsWith(">") ? h.substring(1) : h).toList();
    }

    public String markdown() {
        Markdown md = new Markdown();
        md.heading(1, "Parity sweep: " + (passed() ? "PASS" : "FAIL"));
        md.paragraph(headline());
        for (Summary s : summaries) md.item(models.get(s.model()).generation(), sentence(s));
        md.blank();
        md.table(SUMMARY_HEADERS, summaryRows());
        md.heading(2, "Every prompt");
        md.table(ROW_HEADERS, rowRows());
        md.heading(2, "Prompts");
        md.table(List.of("prompt", ">line"), prompts.stream().map(p -> List.of(p.id(), Integer.toString(p.line()))).toList());
        Report.appendProvenance(md, inputs);
        return md.toString();
    }

    public String html() {
        HtmlPage page = new HtmlPage("Parity sweep: " + (passed() ? "PASS" : "FAIL"));
        page.verdict(passed(), headline());
        for (Summary s : summaries) page.paragraph(sentence(s));
        page.table(plain(SUMMARY_HEADERS), summaryRows());
        page.chart("worst-tap relative L2 of every prompt, one line per model and engine", worstByPrompt());
        page.heading(2, "Every prompt");
        page.table(plain(ROW_HEADERS), rowRows());
        return page.render();
    }

    /** Per model and engine, the worst tap's relative L2 on each prompt, on a log axis. */
    Chart worstByPrompt() {
        Map<String, double[]> series = new LinkedHashMap<>();
        for (Summary s : summaries) {
            double[] worst = new double[prompts.size()];
            for (Row r : s.rows()) worst[r.prompt()] = r.result().worstRelL2();
            series.put(models.get(s.model()).path() + " " + s.engine(), worst);
        }
        return Charts.lines("Worst-tap relative L2 by prompt", "prompt", "relative L2", prompts.stream().map(Prompt::id).toList(), series,
                Charts.Scale.LOG);
    }

    private static String g(double v) {
        return String.format(Locale.ROOT, "%.3g", v);
    }
}
