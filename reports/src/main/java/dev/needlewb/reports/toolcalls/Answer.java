package dev.needlewb.reports.toolcalls;

import java.io.Serializable;
import java.util.List;

/**
 * One engine's answer to one case: the generated ids, the call list (null when none was closed),
 * per generated token the most likely candidates of the masked distribution, the decode timing, and how many of
 * the prompt's tokens were stepped (the rest came from a prefix an earlier case shared). Serializable: a sweep on
 * Spark sends it back from the executor that computed it.
 */
public record Answer(int[] ids, String calls, List<Candidates> steps, int decodeSteps, long decodeNanos, long wallNanos,
                     int promptTokens, int promptTokensStepped) implements Serializable {
    /** The top candidates of one step, best first. */
    public record Candidates(int[] ids, double[] probs) implements Serializable {
        /** The probability of {@code id} if it is among the candidates, else NaN. */
        public double prob(int id) {
            for (int i = 0; i < ids.length; i++) if (ids[i] == id) return probs[i];
            return Double.NaN;
        }
    }

    public Answer {
        ids = ids.clone();
        steps = List.copyOf(steps);
    }

    @Override
    public int[] ids() {
        return ids.clone();
    }
}
