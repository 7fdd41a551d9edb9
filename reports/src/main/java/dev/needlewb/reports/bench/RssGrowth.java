package dev.needlewb.reports.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The timed runs' resident-set growth (VmRSS after the last token minus VmRSS just before the model
 * was opened, both in this process), and whether it measures the engine. It does only when at least
 * two runs measured it, every one grew, and the smallest growth is larger than the spread between
 * runs: a growth that repeats, beyond its own run-to-run noise. Otherwise the JVM's own heap moves
 * between the two readings (it grows with garbage, shrinks after a collection) can outweigh the
 * engine's memory, and the change is reported as a change, not as the engine's growth.
 *
 * @param mib the growth of every run that measured it, ascending
 * @param unmeasured runs without a reading
 */
public record RssGrowth(double[] mib, int unmeasured) {

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
        int n = mib.length;
        return n == 0 ? Double.NaN : n % 2 == 1 ? mib[n / 2] : (mib[n / 2 - 1] + mib[n / 2]) / 2;
    }

    /** Every run measured, at least two, every one grew, and by more than the runs differ. */
    public boolean meaningful() {
        return unmeasured == 0 && mib.length >= 2 && min() > 0 && min() > max() - min();
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
            return String.format(Locale.ROOT, "RSS grew by %.1f MiB %s (median of %d runs, %.1f to %.1f), %s the %s", median, span,
                    mib.length, min(), max(), median * 1048576.0 <= memory.budgetBytes() ? "within" : "over", budget);
        }
        String why;
        if (mib.length == 1) {
            why = String.format(Locale.ROOT, "RSS changed by %+.1f MiB %s in the one timed run, which gives no measure of"
                    + " run-to-run noise", mib[0], span);
        } else if (min() <= 0) {
            why = String.format(Locale.ROOT, "RSS changed by %+.1f to %+.1f MiB %s over %d runs; not every run grew", min(), max(),
                    span, mib.length);
        } else {
            why = String.format(Locale.ROOT, "RSS grew by %.1f to %.1f MiB %s over %d runs; the runs differ by %.1f MiB, as much as"
                    + " the smallest growth", min(), max(), span, mib.length, max() - min());
        }
        return why + ", so no engine growth is claimed; " + budget;
    }
}
