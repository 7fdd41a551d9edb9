package dev.needlewb.reports.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The timed runs' resident-set growth (VmRSS after the last token minus VmRSS just before the model
 * was opened, both in this process), and whether it measures the engine. It does only when at least
 * two runs measured it, every one grew, and the median growth is more than {@value #NOISE_FACTOR}
 * times the runs' median absolute deviation from it (a robust measure of run-to-run noise that one
 * outlying run does not dominate). Otherwise the JVM's own heap moves between the two readings (it
 * grows with garbage, shrinks after a collection) can outweigh the engine's memory, and the change
 * is reported as a change, not as the engine's growth.
 *
 * @param mib the growth of every run that measured it, ascending
 * @param unmeasured runs without a reading
 */
public record RssGrowth(double[] mib, int unmeasured) {
    /** Growth counts as the engine's when its median exceeds this many median absolute deviations. */
    static final int NOISE_FACTOR = 3;

    public RssGrowth {
        mib = mib.clone();
        Arrays.sort(mib);
    }

    static RssGrowth of(List<BenchRun> runs) {
        double[] measured = runs.stream().filter(r -> r.rssGrowthKib() != PeakRss.UNAVAILABLE)
                .mapToDouble(r -> r.rssGrowthKib() / 1024.0).toArray();
        return new RssGrowth(measured, runs.size() - measured.length);
    }

    private double min() {
        return mib[0];
    }

    private double max() {
        return mib[mib.length - 1];
    }

    double median() {
        return median(mib);
    }

    private static double median(double[] sorted) {
        int n = sorted.length;
        return n == 0 ? Double.NaN : n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** The median of the runs' distances from the median growth. */
    double medianDeviation() {
        double m = median();
        return median(Arrays.stream(mib).map(x -> Math.abs(x - m)).sorted().toArray());
    }

    /** Every run measured, at least two, every one grew, and the median beyond the noise. */
    public boolean meaningful() {
        return unmeasured == 0 && mib.length >= 2 && min() > 0 && median() > NOISE_FACTOR * medianDeviation();
    }

    /** One sentence: the growth against the engine's budget, or why the RSS change is not its growth. */
    String describe(EngineMemory memory) {
        String budget = String.format(Locale.ROOT, "budget file + KV cache = %.1f + %.1f = %.1f MiB", memory.fileBytes() / 1048576.0,
                memory.kvBytes() / 1048576.0, memory.budgetBytes() / 1048576.0);
        if (unmeasured > 0) return "RSS growth not measured (VmRSS unreadable in " + unmeasured + " of " + (unmeasured + mib.length)
                + " runs); " + budget;
        String span = "from just before load to the last token";
        if (meaningful()) {
            double median = median();
            return String.format(Locale.ROOT, "RSS grew by %.1f MiB %s (median of %d runs, %.1f to %.1f, median absolute deviation"
                    + " %.1f), %s the %s", median, span, mib.length, min(), max(), medianDeviation(),
                    median * 1048576.0 <= memory.budgetBytes() ? "within" : "over", budget);
        }
        String why;
        if (mib.length == 1) {
            why = String.format(Locale.ROOT, "RSS changed by %+.1f MiB %s in the one timed run, which gives no measure of"
                    + " run-to-run noise", mib[0], span);
        } else if (min() <= 0) {
            why = String.format(Locale.ROOT, "RSS changed by %+.1f to %+.1f MiB %s over %d runs; not every run grew", min(), max(),
                    span, mib.length);
        } else {
            why = String.format(Locale.ROOT, "RSS grew by %.1f to %.1f MiB %s over %d runs; their median absolute deviation, %.1f MiB,"
                    + " is at least 1/%d of the median growth, %.1f MiB", min(), max(), span, mib.length, medianDeviation(), NOISE_FACTOR,
                    median());
        }
        return why + ", so no engine growth is claimed; " + budget;
    }
}
