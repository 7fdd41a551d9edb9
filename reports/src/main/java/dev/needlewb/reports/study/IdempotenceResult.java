package dev.needlewb.reports.study;

import java.io.Serializable;
import java.util.List;

/**
 * The trajectory of one tensor under upstream's s -> quantize(dequantize(s)) from round 0. Serializable: a
 * study on Spark sends it back from the executor that computed it.
 *
 * @param inputMaxAbsError  for a study started from float weights: the largest |dequantize(round 0) - w|; NaN otherwise
 * @param inputRmsError     likewise, the RMS error of round 0 against the input weights
 * @param initialNormSum    sum of the group norms of round 0
 * @param rounds            rounds 1, 2, ... as run
 * @param outcome           whether the state repeated within the rounds allowed
 * @param cycleStart        the first round of the repeating state (for a fixed point: the rounds it took), or -1
 * @param cycleLength       1 for a fixed point, the cycle length for a cycle, 0 if no repeat was reached
 * @param groupsOnCycles    groups that ended on a cycle of length 2 or more
 * @param groupsByStart     element k: groups whose own fixed point or cycle starts at round k (unsettled groups are not counted)
 */
public record IdempotenceResult(String tensor, int rows, int cols, int recordBits, int group, long groups,
        int maxRounds, double inputMaxAbsError, double inputRmsError, double initialNormSum,
        List<IdempotenceRound> rounds, Outcome outcome, int cycleStart, long cycleLength, long groupsOnCycles,
        long[] groupsByStart) implements Serializable {

    public enum Outcome {
        /** The state after round {@code cycleStart} is reproduced by the next round. */
        FIXED_POINT,
        /** The state after round {@code cycleStart + cycleLength} equals the one after round {@code cycleStart}. */
        CYCLE,
        /** No state repeated within {@code maxRounds}. */
        NO_REPEAT
    }

    public IdempotenceResult {
        rounds = List.copyOf(rounds);
        groupsByStart = groupsByStart.clone();
    }

    @Override
    public long[] groupsByStart() {
        return groupsByStart.clone();
    }
}
