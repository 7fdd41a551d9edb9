package dev.needlewb.reports.parity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.reports.report.AxisLabels;
import java.util.List;
import org.jfree.chart.axis.LogAxis;
import org.junit.jupiter.api.Test;

/** The parity report's verdict lines count what was judged, and its error chart labels decades as 1e-7. */
class ParityReportTest {

    private static TapResult tap(String name, int layer, double relL2, String rule, String... violations) {
        String site = layer < 0 ? name : name.substring(name.indexOf('.') + 1);
        return new TapResult(name, layer, site, "op", new int[] {4}, new TapMetrics(relL2, relL2, relL2, 1, 1), null, rule,
                List.of(violations));
    }

    private static TapResult logits(String rule) {
        return new TapResult("logits", -1, "logits", "logits", new int[] {4}, new TapMetrics(1e-7, 1e-7, 1e-7, 1, 1),
                new LogitMetrics(1, 1, 1e-13, 1e-12, 1e-7, 0, 4), rule, List.of());
    }

    private static Comparison compare(EngineMode engine, List<TapResult> taps) {
        return new Comparison(engine, "reference q0", null, null, "strict", 4, taps, new double[] {1, 2}, new float[] {1, 2});
    }

    private static ParityReport report(List<Comparison> judged) {
        return new ParityReport(new ParityResult(judged, List.of()), ReferenceWeights.own("model.cact", 38), new int[] {1, 2, 3, 4},
                0, "none", 0, List.of(), new String[] {"test"});
    }

    @Test
    void aPassCountsTheJudgedTaps() {
        Comparison exact = compare(EngineMode.EXACT, List.of(tap("layer00.u", 0, 2e-7, "*"), tap("layer01.u", 1, 3e-7, "*"),
                logits("logits")));
        Comparison int8 = compare(EngineMode.INT8, List.of(tap("layer00.u", 0, 0.01, "*"), tap("layer01.u", 1, 0.02, "*"),
                logits("logits")));
        String md = report(List.of(exact, int8)).markdown();
        assertThat(md).startsWith("# Parity: PASS\n\nPASS: all 6 judged taps of 2 engines against the reference within tolerance\n");
    }

    @Test
    void unjudgedTapsAreNotCalledWithinTolerance() {
        Comparison c = compare(EngineMode.EXACT, List.of(tap("layer00.u", 0, 2e-7, "*"), tap("layer00.odd", 0, 0.5, null),
                tap("layer01.odd", 1, 0.7, null), logits("logits")));
        assertThat(report(List.of(c)).markdown()).contains("PASS: all 2 judged taps of 1 engine against the reference within tolerance;"
                + " 2 taps matched no rule of the profile and were not judged");
        Comparison none = compare(EngineMode.EXACT, List.of(tap("layer00.u", 0, 2e-7, null), logits(null)));
        String html = report(List.of(none)).html();
        assertThat(html).contains("PASS, but nothing was judged: none of the 2 taps of 1 engine against the reference matched a rule"
                + " of its profile").doesNotContain("within tolerance");
        assertThat(html.split("<h1>", -1)).hasSize(2);
    }

    @Test
    void aFailureNamesTheFirstTapOutOfTolerance() {
        Comparison c = compare(EngineMode.INT8, List.of(tap("layer00.u", 0, 0.01, "*"), tap("layer01.u", 1, 0.9, "*", "rel L2 0.9 > 0.1"),
                logits("logits")));
        assertThat(report(List.of(c)).markdown()).startsWith("# Parity: FAIL\n\nFAIL: first tap out of tolerance: int8 layer01.u (op):"
                + " rel L2 0.9 > 0.1\n");
    }

    @Test
    void errorGrowthIsALogChartOverLayersLabelledInDecades() {
        Comparison exact = compare(EngineMode.EXACT, List.of(tap("layer00.u", 0, 1.7e-7, "*"), tap("layer01.u", 1, 6.2e-7, "*"),
                tap("layer01.hpre", 1, 0, "*"), logits("logits")));
        Comparison int8 = compare(EngineMode.INT8, List.of(tap("layer00.u", 0, 0.012, "*"), tap("layer01.u", 1, 0.025, "*"),
                logits("logits")));
        var chart = report(List.of(exact, int8)).errorGrowth().chart();
        assertThat(chart.getCategoryPlot().getDataset().getColumnKeys()).containsExactly("0", "1");
        LogAxis y = (LogAxis) chart.getCategoryPlot().getRangeAxis();
        List<String> labels = AxisLabels.major(y);
        assertThat(labels).containsExactly("1e-7", "1e-6", "1e-5", "1e-4", "1e-3", "1e-2", "1e-1");
    }
}
