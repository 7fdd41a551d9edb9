package dev.needlewb.reports.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.engine.EngineOptions;
import dev.needlewb.engine.generate.Generator;
import dev.needlewb.reports.report.Report;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bench report's memory lines follow its readings: growth is called the engine's only when
 * every run grew by more than the runs differ; peak RSS says since when it counts.
 */
class BenchSummaryTest {
    /** 16 MiB model + 4 MiB KV cache. */
    private static final EngineMemory MEMORY = new EngineMemory(2_000_000, 16L << 20, 4L << 20);
    private static final PeakRss PEAK = new PeakRss(2_480_000, "VmHWM, restarted before the first run");

    /** Runs whose RSS grew by these many KiB (PeakRss.UNAVAILABLE: not read). */
    private static List<BenchRun> runs(long... growthKib) {
        return Arrays.stream(growthKib)
                .mapToObj(g -> new BenchRun(30_000_000, 200_000, 32, 16, new Generator.Timings(800_000_000, 800_100_000, 250_000_000, 15), g))
                .toList();
    }

    private static String memoryLine(long... growthKib) {
        String md = new BenchSummary(runs(growthKib), PEAK, MEMORY).markdown(Path.of("m.cact"), EngineOptions.production(), 1,
                growthKib.length, BenchSummary.method("native", 0, 0), "", List.of());
        return md.lines().filter(l -> l.startsWith("- engine memory: ")).findFirst().orElseThrow();
    }

    @Test
    void growthBeyondItsRunToRunNoiseIsTheEngines() {
        // 12, 13, 14 MiB: median 13 > 3 x median absolute deviation 1
        assertThat(memoryLine(12 << 10, 13 << 10, 14 << 10)).isEqualTo("- engine memory: RSS grew by 13.0 MiB from just before load"
                + " to the last token (median of 3 runs, 12.0 to 14.0, median absolute deviation 1.0), within the budget file + KV"
                + " cache = 16.0 + 4.0 = 20.0 MiB");
        assertThat(memoryLine(30 << 10, 31 << 10)).contains("RSS grew by 30.5 MiB", "over the budget");
        // one low run (as measured with -Xmx64m): median 12.74, deviation 2.04; the outlier does not decide
        assertThat(memoryLine(2611, 13046, 10957, 13117, 17265)).contains("RSS grew by 12.7 MiB", "2.5 to 16.9", "within the budget");
    }

    @Test
    void aShrinkingOrMixedChangeIsNotCalledGrowth() {
        String mixed = memoryLine(-47 << 10, 13 << 10);
        assertThat(mixed).isEqualTo("- engine memory: RSS changed by -47.0 to +13.0 MiB from just before load to the last token over"
                + " 2 runs; not every run grew, so no engine growth is claimed; budget file + KV cache = 16.0 + 4.0 = 20.0 MiB");
        assertThat(memoryLine(-94 << 10, -20 << 10)).contains("RSS changed by -94.0 to -20.0 MiB", "no engine growth is claimed")
                .doesNotContain("grew by");
        assertThat(memoryLine(0, 0)).contains("changed by +0.0 to +0.0 MiB", "not every run grew");
    }

    @Test
    void growthWithinItsOwnNoiseOrFromOneRunIsNotClaimed() {
        assertThat(memoryLine(2 << 10, 9 << 10)).contains("RSS grew by 2.0 to 9.0 MiB", "their median absolute deviation, 3.5 MiB,"
                + " is at least 1/3 of the median growth, 5.5 MiB", "no engine growth is claimed");
        assertThat(memoryLine(12 << 10)).contains("RSS changed by +12.0 MiB from just before load to the last token in the one timed"
                + " run, which gives no measure of run-to-run noise, so no engine growth is claimed");
        assertThat(memoryLine(12 << 10, PeakRss.UNAVAILABLE)).startsWith("- engine memory: RSS growth not measured (VmRSS unreadable in 1 of 2 runs)");
    }

    @Test
    void theReportShowsPeakRssNotGrowthInItsTable() {
        BenchSummary summary = new BenchSummary(runs(-47 << 10, 13 << 10), PEAK, MEMORY);
        String md = summary.markdown(Path.of("m.cact"), EngineOptions.production(), 1, 2, BenchSummary.method("native", 0, 0),
                "Window: 256 (header kv_window).", List.of());
        assertThat(md).contains("- peak RSS: 2421.9 MiB (VmHWM, restarted before the first run)", "- JVM max heap (-Xmx): ")
                .doesNotContain("rss_growth_mib", "bounds the peak");
        assertThat(md.indexOf("Window: 256")).as("details come before the provenance").isLessThan(md.indexOf("## Provenance"));
        Report report = new Report("bench", List.of(), new String[] {"test"});
        summary.fill(report.body());
        assertThat(report.body().get("rss_growth_is_engine_growth").asBoolean()).isFalse();
        assertThat(report.body().get("runs").get(0).get("rss_growth_mib").asDouble()).isEqualTo(-47.0);
        assertThat(report.body().get("peak_rss_kib").asLong()).isEqualTo(2_480_000);
    }

    @Test
    void theMethodSentenceFollowsPrefillAndTemperature() {
        assertThat(BenchSummary.method("native", 0, 0)).contains("prefills it token by token and decodes greedily without stopping at EOS");
        assertThat(BenchSummary.method("batch", 0.7, 5)).contains("prefills it all at once (batch prefill) and samples at temperature"
                + " 0.7 (seed 5)").doesNotContain("greedily");
    }

    @Test
    void peakRssSaysSinceWhenItCounts(@TempDir Path dir) throws IOException {
        Path status = dir.resolve("status");
        Files.writeString(status, "Name:\tjava\nVmHWM:\t  2480000 kB\nVmRSS:\t  2400000 kB\n");
        assertThat(PeakRss.read(status, null)).isEqualTo(new PeakRss(2_480_000, "VmHWM, restarted before the first run"));
        assertThat(PeakRss.read(status, "x not writable").note()).startsWith("VmHWM since the process started, which includes any work before the bench");
        assertThat(PeakRss.restart(dir.resolve("absent").resolve("clear_refs"))).contains("not writable");
        Path clearRefs = dir.resolve("clear_refs");
        assertThat(PeakRss.restart(clearRefs)).isNull();
        assertThat(Files.readString(clearRefs)).isEqualTo("5");
    }
}
