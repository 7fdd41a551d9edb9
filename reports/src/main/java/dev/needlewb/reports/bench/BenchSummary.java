package dev.needlewb.reports.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.needlewb.engine.EngineOptions;
import dev.needlewb.reports.report.InputFile;
import dev.needlewb.reports.report.Markdown;
import dev.needlewb.reports.report.Report;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Timed runs summarised per metric (median, min, max) plus peak RSS and the engine's memory against
 * its budget (RSS growth from just before load to the last token vs file size + KV cache, where
 * {@link RssGrowth} finds it a measurement), as report JSON and Markdown.
 */
public final class BenchSummary {
    private final List<BenchRun> runs;
    private final PeakRss peakRss;
    private final EngineMemory memory;

    public BenchSummary(List<BenchRun> runs, PeakRss peakRss, EngineMemory memory) {
        if (runs.isEmpty()) throw new IllegalArgumentException("a summary needs at least one run");
        this.runs = List.copyOf(runs);
        this.peakRss = peakRss;
        this.memory = memory;
    }

    /** Adds token counts, every run, the per-metric summary and peak RSS to a report body. */
    public void fill(ObjectNode body) {
        body.put("prompt_tokens", runs.getFirst().promptTokens());
        body.put("output_tokens", runs.getFirst().outputTokens());
        ArrayNode all = body.putArray("runs");
        for (BenchRun run : runs) {
            ObjectNode n = all.addObject();
            n.put("prompt_tokens", run.promptTokens());
            n.put("output_tokens", run.outputTokens());
            n.put("decode_steps", run.timings().decodeSteps());
            run.metrics().forEach((k, v) -> putNumber(n, k, v));
        }
        ObjectNode summary = body.putObject("summary");
        for (String metric : runs.getFirst().metrics().keySet()) {
            double[] s = sorted(metric);
            ObjectNode m = summary.putObject(metric);
            putNumber(m, "median", median(s));
            putNumber(m, "min", s.length == 0 ? Double.NaN : s[0]);
            putNumber(m, "max", s.length == 0 ? Double.NaN : s[s.length - 1]);
        }
        if (peakRss.available()) body.put("peak_rss_kib", peakRss.kib());
        else body.putNull("peak_rss_kib");
        body.put("peak_rss_note", peakRss.note());
        body.put("jvm_max_heap_mib", maxHeapMib());
        if (memory.jvmBaselineKib() == PeakRss.UNAVAILABLE) body.putNull("jvm_baseline_rss_kib");
        else body.put("jvm_baseline_rss_kib", memory.jvmBaselineKib());
        RssGrowth growth = RssGrowth.of(runs);
        body.put("rss_growth_is_engine_growth", growth.meaningful());
        body.put("rss_growth_note", growth.describe(memory));
        body.put("engine_budget_bytes", memory.budgetBytes());
        body.put("model_file_bytes", memory.fileBytes());
        body.put("kv_cache_bytes", memory.kvBytes());
    }

    private static long maxHeapMib() {
        return Runtime.getRuntime().maxMemory() >> 20;
    }

    /**
     * How each run worked, from its settings: the prefill ({@code native}: token by token; else the
     * whole prompt at once) and the decoding (greedy at temperature 0, else sampled).
     */
    public static String method(String prefill, double temperature, long seed) {
        String prefills = prefill.equals("native") ? "prefills it token by token" : "prefills it all at once (" + prefill + " prefill)";
        String decodes = temperature == 0 ? "decodes greedily" : String.format(Locale.ROOT, "samples at temperature %s (seed %d)",
                BigDecimal.valueOf(temperature).stripTrailingZeros().toPlainString(), seed);
        return "Each run opens the model, tokenizes the prompt, " + prefills + " and " + decodes + " without stopping at EOS;"
                + " time to first token counts from the start of prefill to the first pick.";
    }

    /**
     * The Markdown report: settings, memory, the metric table, {@code method} (see {@link #method}),
     * then {@code details} (Markdown the command adds) before the provenance.
     */
    public String markdown(Path model, EngineOptions options, int warmup, int repetitions, String method, String details,
            List<InputFile> inputs) {
        Markdown md = new Markdown();
        md.heading(1, "Benchmark: " + model.getFileName());
        md.item("mode", options.mode().name().toLowerCase(Locale.ROOT));
        md.item("threads", options.threads());
        md.item("warm-up runs", warmup);
        md.item("timed runs", repetitions);
        md.item("prompt tokens", runs.getFirst().promptTokens());
        md.item("output tokens", runs.getFirst().outputTokens());
        md.item("peak RSS", peakRss.available() ? String.format(Locale.ROOT, "%.1f MiB (%s)", peakRss.kib() / 1024.0, peakRss.note())
                : "unavailable: " + peakRss.note());
        md.item("JVM max heap (-Xmx)", maxHeapMib() + " MiB");
        md.item("JVM baseline RSS", memory.jvmBaselineKib() == PeakRss.UNAVAILABLE ? "unavailable"
                : String.format(Locale.ROOT, "%.1f MiB (just before the first engine load)", memory.jvmBaselineKib() / 1024.0));
        md.item("engine memory", RssGrowth.of(runs).describe(memory));
        md.blank();
        List<List<String>> rows = new ArrayList<>();
        for (String metric : runs.getFirst().metrics().keySet()) {
            if (metric.equals(BenchRun.RSS_GROWTH)) continue;
            double[] s = sorted(metric);
            rows.add(List.of(metric, format(median(s)), format(s.length == 0 ? Double.NaN : s[0]),
                    format(s.length == 0 ? Double.NaN : s[s.length - 1])));
        }
        md.table(List.of("metric", ">median", ">min", ">max"), rows);
        md.paragraph(method);
        if (!details.isBlank()) md.paragraph(details.strip());
        Report.appendProvenance(md, inputs);
        return md.toString();
    }

    private double[] sorted(String metric) {
        return runs.stream().mapToDouble(r -> r.metrics().get(metric)).filter(v -> !Double.isNaN(v)).sorted().toArray();
    }

    private static double median(double[] s) {
        if (s.length == 0) return Double.NaN;
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    private static void putNumber(ObjectNode n, String key, double v) {
        if (Double.isNaN(v)) n.putNull(key);
        else n.put(key, v);
    }

    private static String format(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%,.2f", v);
    }
}
