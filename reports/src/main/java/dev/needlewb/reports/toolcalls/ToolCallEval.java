package dev.needlewb.reports.toolcalls;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every case's answers from every engine (computed by whoever runs the sweep), compared with the
 * first engine's, and with the expected calls where the cases give them.
 */
public final class ToolCallEval {
    /** Per engine: its answers in case order and its totals ({@code wallNanos}: the answers' wall times added up). */
    public record EngineRun(String engine, List<Answer> answers, long wallNanos) {
        public static EngineRun of(String engine, List<Answer> answers) {
            return new EngineRun(engine, answers, answers.stream().mapToLong(Answer::wallNanos).sum());
        }

        double decodeTokensPerSecond() {
            long steps = 0, nanos = 0;
            for (Answer a : answers) {
                steps += a.decodeSteps();
                nanos += a.decodeNanos();
            }
            return nanos == 0 ? Double.NaN : steps * 1e9 / nanos;
        }

        long promptTokens() {
            return answers.stream().mapToLong(Answer::promptTokens).sum();
        }

        long promptTokensStepped() {
            return answers.stream().mapToLong(Answer::promptTokensStepped).sum();
        }

        int closedLists() {
            int n = 0;
            for (Answer a : answers) if (CallComparison.parse(a.calls()) != null) n++;
            return n;
        }
    }

    private final List<ToolCallCase> cases;
    private final List<ToolCallRunner.Prepared> prepared;

    public ToolCallEval(List<ToolCallCase> cases, List<ToolCallRunner.Prepared> prepared) {
        this.cases = cases;
        this.prepared = prepared;
    }

    /** Each engine after the first against the first. */
    List<Agreement> agreements(List<EngineRun> runs) {
        List<Agreement> out = new ArrayList<>();
        EngineRun base = runs.getFirst();
        for (EngineRun other : runs.subList(1, runs.size())) {
            Agreement a = new Agreement(other.engine(), base.engine());
            for (int i = 0; i < cases.size(); i++) a.add(cases.get(i).id(), base.answers().get(i), other.answers().get(i));
            out.add(a);
        }
        return out;
    }

    /** An engine's answers against the expected calls: the cases that give them and how many pass each {@link Metric}. */
    record Scores(int cases, int[] passed) {
        double rate(Metric m) {
            return cases == 0 ? Double.NaN : (double) passed[m.ordinal()] / cases;
        }
    }

    /** Per engine, over the cases that give expected calls (none when no case does). */
    Map<String, Scores> scores(List<EngineRun> runs) {
        Map<String, Scores> out = new LinkedHashMap<>();
        for (EngineRun r : runs) {
            int n = 0;
            int[] passed = new int[Metric.values().length];
            for (int i = 0; i < cases.size(); i++) {
                if (cases.get(i).expected() == null) continue;
                n++;
                JsonNode got = CallComparison.parse(r.answers().get(i).calls());
                for (Metric m : Metric.values()) if (m.passes(got, cases.get(i))) passed[m.ordinal()]++;
            }
            if (n > 0) out.put(r.engine(), new Scores(n, passed));
        }
        return out;
    }

    List<ToolCallCase> cases() {
        return cases;
    }

    List<ToolCallRunner.Prepared> prepared() {
        return prepared;
    }
}
