package dev.needlewb.reports.bench;

import dev.needlewb.engine.generate.Generator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The measurements of one timed run; rates are NaN when nothing was measured (one output token: no
 * decode step). {@code rssGrowthKib}: resident set after the last token (engine still open) minus
 * the resident set just before the model was opened, {@link PeakRss#UNAVAILABLE} when unknown.
 */
public record BenchRun(long loadNanos, long tokenizeNanos, int promptTokens, int outputTokens, Generator.Timings timings,
        long rssGrowthKib) {
    /** The report name of the RSS growth, in MiB. */
    public static final String RSS_GROWTH = "rss_growth_mib";

    public double prefillTokensPerSecond() {
        return rate(promptTokens, timings.prefillNanos());
    }

    public double decodeTokensPerSecond() {
        return rate(timings.decodeSteps(), timings.decodeNanos());
    }

    /** Every figure by its report name, in report order. */
    public Map<String, Double> metrics() {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("load_ms", millis(loadNanos));
        m.put("tokenize_ms", millis(tokenizeNanos));
        m.put("prefill_ms", millis(timings.prefillNanos()));
        m.put("prefill_tokens_per_s", prefillTokensPerSecond());
        m.put("time_to_first_token_ms", millis(timings.firstTokenNanos()));
        m.put("decode_ms", millis(timings.decodeNanos()));
        m.put("decode_tokens_per_s", decodeTokensPerSecond());
        m.put(RSS_GROWTH, rssGrowthKib == PeakRss.UNAVAILABLE ? Double.NaN : rssGrowthKib / 1024.0);
        return m;
    }

    private static double rate(int tokens, long nanos) {
        return tokens == 0 || nanos <= 0 ? Double.NaN : tokens * 1e9 / nanos;
    }

    private static double millis(long nanos) {
        return nanos / 1e6;
    }
}
