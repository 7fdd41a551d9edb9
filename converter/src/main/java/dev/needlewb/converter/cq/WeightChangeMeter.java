package dev.needlewb.converter.cq;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Replaces weights with new values while measuring the change: the sum of squared differences
 * and the largest absolute difference. Differences and, within one call, each lane's sum of
 * squares are float32 (widening each difference to double measured 50x slower: the full-vector
 * widening has no C2 intrinsic); each call then adds its lane sums into per-lane doubles, which
 * are summed when asked for. So the largest change carries the float32 rounding of one difference
 * (relative 2^-24), and the sum of squares a relative error below (n / lanes + 2) * 2^-24, under
 * 1e-6 for a group of 128: ample for a reported RMS. Nothing is reduced across lanes per call (a
 * cross-lane reduction per group cost as much as the rest of the meter), and sums run in a fixed
 * order that depends only on the sequence of calls. Not thread-safe: one meter per task.
 */
final class WeightChangeMeter {
    private static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_PREFERRED;
    private static final int L = FLOATS.length();

    private final float[] callSquares = new float[L];
    private final double[] laneSquares = new double[L];
    private final float[] laneMax = new float[L];
    private double tailSquares;
    private double tailMax;

    /** Moves {@code fresh[from, from + n)} into {@code weights[at, at + n)}, measuring what changed. */
    void replace(float[] fresh, int from, float[] weights, int at, int n) {
        FloatVector squares = FloatVector.zero(FLOATS);
        FloatVector largest = FloatVector.fromArray(FLOATS, laneMax, 0);
        int k = 0;
        for (; k <= n - L; k += L) {
            FloatVector now = FloatVector.fromArray(FLOATS, fresh, from + k);
            FloatVector d = now.sub(FloatVector.fromArray(FLOATS, weights, at + k));
            squares = d.fma(d, squares);
            largest = largest.max(d.abs());
            now.intoArray(weights, at + k);
        }
        largest.intoArray(laneMax, 0);
        squares.intoArray(callSquares, 0);
        for (int l = 0; l < L; l++) laneSquares[l] += callSquares[l];
        for (; k < n; k++) {
            float d = fresh[from + k] - weights[at + k];
            tailSquares += (double) d * d;
            tailMax = Math.max(tailMax, Math.abs(d));
            weights[at + k] = fresh[from + k];
        }
    }

    CqGroupMap.Change change() {
        double sum = tailSquares;
        double max = tailMax;
        for (int l = 0; l < L; l++) {
            sum += laneSquares[l];
            max = Math.max(max, laneMax[l]);
        }
        return new CqGroupMap.Change(sum, max);
    }
}
