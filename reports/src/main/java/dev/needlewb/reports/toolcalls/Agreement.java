package dev.needlewb.reports.toolcalls;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One engine against a baseline over all cases: agreement of the whole call list, of the tool
 * names, of each argument, and per case the first generated token where the two differ.
 */
final class Agreement {
    /** Where two answers part: token index, each side's token and both sides' probabilities of both (NaN: not a top candidate). */
    record Divergence(String caseId, int index, int baseToken, int otherToken, double baseOfBase, double baseOfOther,
                      double otherOfBase, double otherOfOther) {}

    final String engine;
    final String baseline;
    int cases;
    int sameCalls;
    int sameNames;
    final Map<String, int[]> arguments = new TreeMap<>();
    final java.util.List<Divergence> divergences = new java.util.ArrayList<>();

    Agreement(String engine, String baseline) {
        this.engine = engine;
        this.baseline = baseline;
    }

    void add(String caseId, Answer base, Answer other) {
        cases++;
        JsonNode a = CallComparison.parse(base.calls());
        JsonNode b = CallComparison.parse(other.calls());
        if (CallComparison.sameCalls(a, b)) sameCalls++;
        if (CallComparison.sameNames(a, b)) sameNames++;
        CallComparison.arguments(a, b, arguments);
        Divergence d = firstDivergence(caseId, base, other);
        if (d != null) divergences.add(d);
    }

    static Divergence firstDivergence(String caseId, Answer base, Answer other) {
        int[] x = base.ids();
        int[] y = other.ids();
        int n = Math.min(x.length, y.length);
        for (int i = 0; i <= n; i++) {
            int tx = i < x.length ? x[i] : -1;
            int ty = i < y.length ? y[i] : -1;
            if (tx == ty) {
                if (i == n) return null;
                continue;
            }
            List<Answer.Candidates> sb = base.steps();
            List<Answer.Candidates> so = other.steps();
            Answer.Candidates cb = i < sb.size() ? sb.get(i) : null;
            Answer.Candidates co = i < so.size() ? so.get(i) : null;
            return new Divergence(caseId, i, tx, ty, prob(cb, tx), prob(cb, ty), prob(co, tx), prob(co, ty));
        }
        return null;
    }

    private static double prob(Answer.Candidates c, int token) {
        return c == null || token < 0 ? Double.NaN : c.prob(token);
    }

    double callRate() {
        return cases == 0 ? Double.NaN : (double) sameCalls / cases;
    }

    double nameRate() {
        return cases == 0 ? Double.NaN : (double) sameNames / cases;
    }

    double argumentRate() {
        int m = 0, t = 0;
        for (int[] v : arguments.values()) {
            m += v[0];
            t += v[1];
        }
        return t == 0 ? Double.NaN : (double) m / t;
    }
}
