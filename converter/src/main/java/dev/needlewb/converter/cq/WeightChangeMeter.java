package dev.needlewb.converter.cq;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Replaces weights with new values while measuring the change: the sum of squared differences
 * and the largest absolute difference. Differences and, within one call, the sums of squares are
 * float32 lanes (widening each difference to double measured 50x slower: the full-vector widening
 * has no C2 intrinsic); each call's sum is then added in double. So the largest change carries
 * the float32 rounding of one difference (relative 2^-24), and each call's sum of squares a
 * relative error below (n / lanes + 2) * 2^-24, under 1e-6 for a group of 128: ample for a
 * reported RMS. Sums run in a fixed order and depend only on the sequence of calls. Not
 * thread-safe: one meter per task.
 */
final class WeightChangeMeter {
    private static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_PREFERRED;
    private static final int L = FLOATS.length();

    private double sumSquares;
    private double maxAbs;

    /** Moves {@code fresh[from, from + n)} into {@code weights[at, at + n)}, measuring what changed. */
    void replace(float[] fresh, int from, float[] weights, int at, int n) {
        FloatVector squares = FloatVector.zero(FLOATS);
        FloatVector largest = FloatVector.zero(FLOATS);
        int k = 0;
        for (; k <= n - L; k += L) {
            FloatVector now = FloatVector.fromArray(FLOATS, fresh, from + k);
            FloatVector d = now.sub(FloatVector.fromArray(FLOATS, weights, at + k));
            squares = d.fma(d, squares);
            largest = largest.max(d.abs());
            now.intoArray(weights, at + k);
        }
        double sum = squares.reduceLanes(VectorOperators.ADD);
        double max = largest.reduceLanes(VectorOperators.MAX);
        for (; k < n; k++) {
            float d = fresh[from + k] - weights[at + k];
            sum += (double) d * d;
            max = Math.max(max, Math.abs(d));
            weights[at + k] = fresh[from + k];
        }
        sumSquares += sum;
        maxAbs = Math.max(maxAbs, max);
    }

    CqGroupMap.Change change() {
        return new CqGroupMap.Change(sumSquares, maxAbs);
    }
}
