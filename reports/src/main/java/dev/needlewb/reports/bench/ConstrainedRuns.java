package dev.needlewb.reports.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.needlewb.reports.report.Markdown;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code bench --tools}: per timed run, the free decode (the run's own) and a constrained decode of the
 * same prompt in the same engine right after it, with the time the masks took. Summarised as medians
 * and the constrained / free decode rate ratio (the issue asks it within 10%).
 */
public final class ConstrainedRuns {
    /** One run's pair: decode tokens/s free and constrained, the constrained output and its masking time. */
    public record Pair(double freeTokensPerSecond, double constrainedTokensPerSecond, int constrainedTokens,
                       double maskMillisPerToken, double maskShareOfDecode, String calls) {}

    private final List<Pair> pairs = new ArrayList<>();

    public void add(Pair p) {
        pairs.add(p);
    }

    public void clear() {
        pairs.clear();
    }

    private double median(java.util.function.ToDoubleFunction<Pair> f) {
        double[] s = pairs.stream().mapToDouble(f).filter(v -> !Double.isNaN(v)).sorted().toArray();
        if (s.length == 0) return Double.NaN;
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    private double ratio() {
        return median(p -> p.constrainedTokensPerSecond() / p.freeTokensPerSecond());
    }

    public void fill(ObjectNode body) {
        ObjectNode n = body.putObject("tool_calls");
        ArrayNode runs = n.putArray("runs");
        for (Pair p : pairs) {
            ObjectNode r = runs.addObject();
            put(r, "free_decode_tokens_per_s", p.freeTokensPerSecond());
            put(r, "constrained_decode_tokens_per_s", p.constrainedTokensPerSecond());
            r.put("constrained_output_tokens", p.constrainedTokens());
            put(r, "mask_ms_per_token", p.maskMillisPerToken());
            put(r, "mask_share_of_decode", p.maskShareOfDecode());
            r.put("calls", p.calls());
        }
        put(n, "free_decode_tokens_per_s_median", median(Pair::freeTokensPerSecond));
        put(n, "constrained_decode_tokens_per_s_median", median(Pair::constrainedTokensPerSecond));
        put(n, "mask_ms_per_token_median", median(Pair::maskMillisPerToken));
        put(n, "mask_share_of_decode_median", median(Pair::maskShareOfDecode));
        put(n, "constrained_over_free_median", ratio());
    }

    public String markdown() {
        Markdown md = new Markdown();
        md.heading(2, "Tool calls: constrained vs free decode");
        List<List<String>> rows = new ArrayList<>();
        int i = 1;
        for (Pair p : pairs) {
            rows.add(List.of(Integer.toString(i++), f(p.freeTokensPerSecond()), f(p.constrainedTokensPerSecond()),
                    Integer.toString(p.constrainedTokens()), String.format(Locale.ROOT, "%.3f", p.maskMillisPerToken()),
                    String.format(Locale.ROOT, "%.1f%%", 100 * p.maskShareOfDecode())));
        }
        md.table(List.of(">run", ">free decode tok/s", ">constrained decode tok/s", ">constrained tokens", ">mask ms/token",
                ">mask share of decode"), rows);
        md.paragraph(String.format(Locale.ROOT, "Medians: free %s tok/s, constrained %s tok/s (ratio %.3f), masking %.3f ms per token,"
                        + " %.1f%% of the constrained decode's wall time. Each run decodes the answer free (not stopping at EOS) and"
                        + " constrained (it ends when the call list closes), each in a fresh session of the same engine, the order"
                        + " alternating run by run. On a loaded machine the two rates drift; the mask share is measured within one decode.",
                f(median(Pair::freeTokensPerSecond)), f(median(Pair::constrainedTokensPerSecond)), ratio(),
                median(Pair::maskMillisPerToken), 100 * median(Pair::maskShareOfDecode)));
        if (!pairs.isEmpty()) md.paragraph("Last constrained answer: `" + pairs.getLast().calls() + "`");
        return md.toString();
    }

    private static void put(ObjectNode n, String key, double v) {
        if (Double.isNaN(v)) n.putNull(key);
        else n.put(key, v);
    }

    private static String f(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%,.1f", v);
    }
}
