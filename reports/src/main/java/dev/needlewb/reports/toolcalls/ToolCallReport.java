package dev.needlewb.reports.toolcalls;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.tokenizer.Tokenizer;
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

/** The {@code eval toolcalls} report: JSON body, Markdown and HTML, and the verdict against a profile. */
public final class ToolCallReport {
    private static final int DIVERGENCES_SHOWN = 20;

    private final ToolCallEval eval;
    private final List<ToolCallEval.EngineRun> runs;
    private final List<Agreement> agreements;
    private final Map<String, ToolCallEval.Scores> scores;
    private final ThresholdProfile profile;
    private final Tokenizer tokenizer;
    private final int threadsPerEngine;

    /** {@code threadsPerEngine}: the threads each native engine ran on, for the report. */
    public ToolCallReport(ToolCallEval eval, List<ToolCallEval.EngineRun> runs, ThresholdProfile profile, Tokenizer tokenizer,
                          int threadsPerEngine) {
        this.eval = eval;
        this.runs = runs;
        this.agreements = eval.agreements(runs);
        this.scores = eval.scores(runs);
        this.profile = profile;
        this.tokenizer = tokenizer;
        this.threadsPerEngine = threadsPerEngine;
    }

    public boolean passed() {
        for (Agreement a : agreements) if (!profile.passes(a.callRate(), a.nameRate())) return false;
        return true;
    }

    public void fill(ObjectNode body, int maxNew, int thinkMax) {
        body.put("cases", eval.cases().size());
        body.put("baseline", runs.getFirst().engine());
        body.put("max_new", maxNew);
        body.put("think_max", thinkMax);
        body.put("threads_per_engine", threadsPerEngine);
        ObjectNode p = body.putObject("profile");
        p.put("name", profile.name());
        p.put("min_call_agreement", profile.minCallAgreement());
        p.put("min_name_agreement", profile.minNameAgreement());
        body.put("verdict", passed() ? "pass" : "fail");
        ObjectNode shapes = body.putObject("tools_shapes");
        tally(c -> c.tools().shapes()).forEach(shapes::put);
        ObjectNode from = body.putObject("expected_from");
        tally(c -> c.expectedFrom() == null ? "none" : c.expectedFrom()).forEach(from::put);
        ObjectNode definitions = body.putObject("score_definitions");
        for (Metric m : Metric.values()) definitions.put(m.key, m.title + ": " + m.definition);
        ArrayNode engines = body.putArray("engines");
        for (ToolCallEval.EngineRun r : runs) {
            ObjectNode e = engines.addObject();
            e.put("name", r.engine());
            number(e, "decode_tokens_per_s", r.decodeTokensPerSecond());
            e.put("wall_s", r.wallNanos() / 1e9);
            e.put("prompt_tokens", r.promptTokens());
            e.put("prompt_tokens_stepped", r.promptTokensStepped());
            e.put("closed_call_lists", r.closedLists());
            ToolCallEval.Scores score = scores.get(r.engine());
            if (score != null) {
                e.put("expected_cases", score.cases());
                for (Metric m : Metric.values()) e.put(m.key, score.rate(m));
            }
        }
        ArrayNode agree = body.putArray("agreement");
        for (Agreement a : agreements) {
            ObjectNode n = agree.addObject();
            n.put("engine", a.engine);
            n.put("baseline", a.baseline);
            n.put("call_agreement", a.callRate());
            n.put("name_agreement", a.nameRate());
            number(n, "argument_agreement", a.argumentRate());
            n.put("passes", profile.passes(a.callRate(), a.nameRate()));
            ObjectNode args = n.putObject("arguments");
            a.arguments.forEach((k, v) -> {
                ObjectNode arg = args.putObject(k);
                arg.put("matches", v[0]);
                arg.put("total", v[1]);
                arg.put("rate", (double) v[0] / v[1]);
            });
            ArrayNode div = n.putArray("first_divergences");
            for (Agreement.Divergence d : a.divergences) {
                ObjectNode x = div.addObject();
                x.put("case", d.caseId());
                x.put("token_index", d.index());
                x.put("baseline_token", d.baseToken());
                x.put("baseline_text", text(d.baseToken()));
                x.put("engine_token", d.otherToken());
                x.put("engine_text", text(d.otherToken()));
                number(x, "baseline_p_of_baseline_token", d.baseOfBase());
                number(x, "baseline_p_of_engine_token", d.baseOfOther());
                number(x, "engine_p_of_baseline_token", d.otherOfBase());
                number(x, "engine_p_of_engine_token", d.otherOfOther());
            }
        }
        ArrayNode detail = body.putArray("case_answers");
        for (int i = 0; i < eval.cases().size(); i++) {
            ToolCallCase c = eval.cases().get(i);
            ObjectNode n = detail.addObject();
            n.put("id", c.id());
            n.put("query", c.query());
            n.put("prompt_tokens", eval.prepared().get(i).prompt().ids().length);
            n.put("tools_shape", c.tools().shapes());
            if (c.expected() != null) {
                n.put("expected_from", c.expectedFrom());
                n.set("expected", c.expected());
            }
            ObjectNode answers = n.putObject("answers");
            for (ToolCallEval.EngineRun r : runs) answers.put(r.engine(), r.answers().get(i).calls());
            if (c.expected() == null) continue;
            ObjectNode caseScores = n.putObject("scores");
            for (ToolCallEval.EngineRun r : runs) {
                ObjectNode e = caseScores.putObject(r.engine());
                JsonNode got = CallComparison.parse(r.answers().get(i).calls());
                for (Metric m : Metric.values()) e.put(m.name().toLowerCase(Locale.ROOT), m.passes(got, c));
            }
        }
    }

    /** How many cases have each value of {@code what}, in order of first appearance. */
    private Map<String, Integer> tally(java.util.function.Function<ToolCallCase, String> what) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (ToolCallCase c : eval.cases()) counts.merge(what.apply(c), 1, Integer::sum);
        return counts;
    }

    private String text(int token) {
        if (token < 0) return "(end)";
        try {
            return tokenizer.decode(new int[] {token});
        } catch (WorkbenchException e) {
            return "?";
        }
    }

    private static void number(ObjectNode n, String key, double v) {
        if (Double.isNaN(v)) n.putNull(key);
        else n.put(key, v);
    }

    private static String pct(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.1f%%", 100 * v);
    }

    private static String p(double v) {
        return Double.isNaN(v) ? "<top 3" : String.format(Locale.ROOT, "%.4f", v);
    }

    private List<List<String>> agreementRows() {
        List<List<String>> rows = new ArrayList<>();
        for (Agreement a : agreements) {
            rows.add(List.of(a.engine + " vs " + a.baseline, pct(a.callRate()), pct(a.nameRate()), pct(a.argumentRate()),
                    Integer.toString(a.divergences.size()), profile.passes(a.callRate(), a.nameRate()) ? "PASS" : "FAIL"));
        }
        return rows;
    }

    private static final List<String> AGREEMENT_HEADERS = List.of("engines", ">whole call", ">tool names", ">arguments",
            ">cases diverging", "verdict");
    private static final List<String> ENGINE_HEADERS = List.of("engine", ">decode tok/s", ">wall s", ">prompt tokens stepped", ">closed call lists");

    private List<List<String>> engineRows() {
        List<List<String>> rows = new ArrayList<>();
        for (ToolCallEval.EngineRun r : runs) {
            rows.add(List.of(r.engine(), String.format(Locale.ROOT, "%,.1f", r.decodeTokensPerSecond()),
                    String.format(Locale.ROOT, "%.2f", r.wallNanos() / 1e9),
                    String.format(Locale.ROOT, "%,d / %,d", r.promptTokensStepped(), r.promptTokens()),
                    r.closedLists() + " / " + r.answers().size()));
        }
        return rows;
    }

    private static final List<String> SCORE_HEADERS = List.of("engine", ">cases with expected calls", ">" + Metric.EXACT.title,
            ">" + Metric.NAMES.title, ">" + Metric.AST.title);

    private List<List<String>> scoreRows() {
        List<List<String>> rows = new ArrayList<>();
        scores.forEach((engine, s) -> {
            List<String> row = new ArrayList<>(List.of(engine, Integer.toString(s.cases())));
            for (Metric m : Metric.values()) row.add(pct(s.rate(m)) + " (" + s.passed()[m.ordinal()] + ")");
            rows.add(row);
        });
        return rows;
    }

    /** Which shapes the cases' tools were written in and where their expected calls came from. */
    private String casesText() {
        return "Cases by the shape their tools were written in: " + counts(tally(c -> c.tools().shapes()))
                + "; by where their expected calls came from: " + counts(tally(c -> c.expectedFrom() == null ? "none" : "\"" + c.expectedFrom() + "\"")) + ".";
    }

    private static String counts(Map<String, Integer> tally) {
        List<String> parts = new ArrayList<>();
        tally.forEach((k, v) -> parts.add(k + " " + v));
        return String.join(", ", parts);
    }

    private List<List<String>> divergenceRows(Agreement a) {
        List<List<String>> rows = new ArrayList<>();
        for (Agreement.Divergence d : a.divergences.subList(0, Math.min(DIVERGENCES_SHOWN, a.divergences.size()))) {
            rows.add(List.of(d.caseId(), Integer.toString(d.index()), "`" + text(d.baseToken()) + "` (" + d.baseToken() + ")",
                    "`" + text(d.otherToken()) + "` (" + d.otherToken() + ")", p(d.baseOfBase()) + " / " + p(d.baseOfOther()),
                    p(d.otherOfBase()) + " / " + p(d.otherOfOther())));
        }
        return rows;
    }

    private static final List<String> DIVERGENCE_HEADERS = List.of("case", ">token", "baseline picks", "engine picks",
            ">baseline p(its / engine's)", ">engine p(baseline's / its)");

    public String markdown(List<InputFile> inputs) {
        Markdown md = new Markdown();
        md.heading(1, "Tool-call agreement: " + (passed() ? "PASS" : "FAIL") + " (profile " + profile.name() + ")");
        md.paragraph(eval.cases().size() + " cases, greedy constrained decoding, baseline " + runs.getFirst().engine()
                + ". Whole call: the parsed call lists are equal; tool names: the same tools in the same order;"
                + " arguments: per argument of calls paired by position.");
        md.table(AGREEMENT_HEADERS, agreementRows());
        md.heading(2, "Engines");
        md.paragraph("Each engine ran its cases in groups that share system text and tools (on this machine or on Spark executors:"
                + " the numbers do not depend on where), each native one on " + threadsPerEngine + " thread" + (threadsPerEngine == 1 ? "" : "s")
                + ", one session reused across its cases; a native prompt steps only the tokens no earlier case of its group shared"
                + " (the rest is restored from a prefix tree of KV rows, the same bits as stepping them).");
        md.table(ENGINE_HEADERS, engineRows());
        md.paragraph(casesText());
        if (!scores.isEmpty()) {
            md.heading(2, "Scores against the expected calls");
            md.table(SCORE_HEADERS, scoreRows());
            for (Metric m : Metric.values()) md.item(m.title, m.definition);
        }
        for (Agreement a : agreements) {
            if (a.arguments.isEmpty() && a.divergences.isEmpty()) continue;
            md.heading(2, a.engine + " vs " + a.baseline);
            List<List<String>> args = new ArrayList<>();
            a.arguments.forEach((k, v) -> args.add(List.of(k, v[0] + " / " + v[1], pct((double) v[0] / v[1]))));
            if (!args.isEmpty()) md.table(List.of("argument", ">agree", ">rate"), args);
            if (!a.divergences.isEmpty()) {
                md.paragraph("First divergent token per case (at most " + DIVERGENCES_SHOWN + " shown; probabilities of the masked distribution):");
                md.table(DIVERGENCE_HEADERS, divergenceRows(a));
            }
        }
        Report.appendProvenance(md, inputs);
        return md.toString();
    }

    public String html() {
        HtmlPage page = new HtmlPage("Tool-call agreement");
        page.verdict(passed(), (passed() ? "PASS" : "FAIL") + " under profile " + profile.name());
        page.table(AGREEMENT_HEADERS.stream().map(h -> h.replace(">", "")).toList(), agreementRows());
        if (!agreements.isEmpty()) {
            List<String> engines = agreements.stream().map(a -> a.engine + " vs " + a.baseline).toList();
            Map<String, double[]> series = new LinkedHashMap<>();
            series.put("whole call", agreements.stream().mapToDouble(a -> 100 * a.callRate()).toArray());
            series.put("tool names", agreements.stream().mapToDouble(a -> 100 * a.nameRate()).toArray());
            series.put("arguments", agreements.stream().mapToDouble(a -> 100 * a.argumentRate()).toArray());
            page.chart("agreement per engine", Charts.bars("Agreement with " + runs.getFirst().engine(), "engine", "agreement (%)", engines, series));
        }
        page.heading(2, "Engines");
        page.table(ENGINE_HEADERS.stream().map(h -> h.replace(">", "")).toList(), engineRows());
        page.paragraph(casesText());
        if (!scores.isEmpty()) {
            page.heading(2, "Scores against the expected calls");
            page.table(SCORE_HEADERS.stream().map(h -> h.replace(">", "")).toList(), scoreRows());
            for (Metric m : Metric.values()) page.paragraph(m.title + ": " + m.definition);
        }
        page.chart("decode speed per engine", Charts.bars("Decode tokens/s", "engine", "tokens/s",
                runs.stream().map(ToolCallEval.EngineRun::engine).toList(),
                Map.of("decode", runs.stream().mapToDouble(ToolCallEval.EngineRun::decodeTokensPerSecond).toArray())));
        for (Agreement a : agreements) {
            if (a.divergences.isEmpty()) continue;
            page.heading(2, "First divergences: " + a.engine + " vs " + a.baseline);
            page.table(DIVERGENCE_HEADERS.stream().map(h -> h.replace(">", "")).toList(), divergenceRows(a));
        }
        return page.render();
    }
}
