package dev.needlewb.reports.sweep;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.converter.synth.GeometryDraws;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.reports.report.Report;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The sweep's verdict from its outcomes: an internal error or a dead child fails it, and the worst tap is the one nearest its limit. */
class SweepReportTest {
    private static final SweepReport.Settings SETTINGS = new SweepReport.Settings(List.of(Generation.NEEDLE2), 7, 2, null, List.of(128, 512), List.of("exact"), 12);

    private static EngineVerdict pass(double relL2) {
        return new EngineVerdict("exact", "strict", true, "logits", relL2, 2e-6, null);
    }

    private static GeometryOutcome geometry(int index, WidthOutcome... widths) throws Exception {
        var drawn = GeometryDraws.draw(7, index);
        return new GeometryOutcome(index, drawn, drawn.describe(), Path.of("g" + index + ".cact"), new CommandOutcome(0, null, 1), List.of(widths));
    }

    @Test
    void anInternalErrorOrADeadChildFailsTheSweep() throws Exception {
        GeometryOutcome fine = geometry(0, new WidthOutcome(128, new CommandOutcome(0, null, 1), List.of(pass(1e-7))),
                new WidthOutcome(512, new CommandOutcome(0, null, 1), List.of(pass(1e-7))));
        GeometryOutcome broken = geometry(1, new WidthOutcome(128, new CommandOutcome(0, null, 1), List.of(pass(1e-7))),
                new WidthOutcome(512, new CommandOutcome(3, "needle-wb: internal error (please report it with this trace):", 1), List.of()));
        SweepReport report = new SweepReport(SETTINGS, List.of(fine, broken), List.of("./needle-wb sweep geometries --only 1"), new String[0]);
        assertThat(report.passed()).isFalse();
        assertThat(report.crashed()).isTrue();
        assertThat(report.firstFailure()).isSameAs(broken);
        assertThat(report.headline()).startsWith("FAIL: 1 of 2 geometries x 2 widths x 1 engines passed; a command ended in an internal error")
                .contains("512 bits: parity exit 3: needle-wb: internal error");
        JsonNode json = report.report().body();
        assertThat(json.at("/first_failure/reproduce/0").asText()).isEqualTo("./needle-wb sweep geometries --only 1");
        assertThat(json.at("/geometries/1/widths/512/parity/exit").asInt()).isEqualTo(3);
        assertThat(report.markdown()).contains("exit 3: needle-wb: internal error");

        GeometryOutcome died = geometry(1, new WidthOutcome(128, new CommandOutcome(CommandOutcome.CRASHED, "child JVM exit 134", 0), List.of()));
        SweepReport dead = new SweepReport(SETTINGS, List.of(fine, died), List.of(), new String[0]);
        assertThat(dead.crashed()).isTrue();
        assertThat(dead.headline()).contains("128 bits: parity crashed: child JVM exit 134");
    }

    @Test
    void theWorstTapIsTheOneNearestItsLimitAndAFailureNamesItsViolations() throws Exception {
        JsonNode parity = Report.JSON.readTree("""
                {"parity": {"comparisons": [
                  {"engine": "int8", "profile": "int8", "passed": true, "taps": [
                    {"name": "embed", "rel_l2": 0.001}, {"name": "layer00.attn.out", "rel_l2": 0.04}, {"name": "logits", "rel_l2": 0.03}]},
                  {"engine": "exact", "profile": "strict", "passed": false,
                   "first_failure": {"tap": "logits", "violations": ["rel_l2 3e-06 > 2e-06", "top1 0.9 < 1"]}, "taps": [
                    {"name": "embed", "rel_l2": 1e-7}, {"name": "logits", "rel_l2": 3e-6}]}]}}""");
        List<EngineVerdict> verdicts = EngineVerdict.fromParity(parity, null);
        assertThat(verdicts.get(0).worstTap()).isEqualTo("layer00.attn.out");
        assertThat(verdicts.get(0).share()).isCloseTo(0.5, org.assertj.core.data.Offset.offset(1e-12)); // 0.04 of the int8 profile's 0.08
        assertThat(verdicts.get(1).passed()).isFalse();
        assertThat(verdicts.get(1).worstTap()).isEqualTo("logits");
        assertThat(verdicts.get(1).firstFailure()).isEqualTo("logits: rel_l2 3e-06 > 2e-06, top1 0.9 < 1");
    }
}
