package dev.needlewb.converter.cq;

import dev.needlewb.core.simd.VectorWidth;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Replaces weights with new values while measuring the change: the sum of squared differences
 * and the largest absolute difference. Differences and, within one call, each lane's sum of
 * squares are float32 (widening each difference to double measured 50x slower: the full-vector
 * widening has no C2 intrinsic); each call then adds its lane sums into per-lane doubles, which
 * are summed when asked for. So the largest change carries the float32 rounding of one difference
 * (relative 2^-24), and the sum of squares a relative error below (n / 16 + 2) * 2^-24, under
 * 1e-6 for a group of 128: ample for a reported RMS. Nothing is reduced across lanes per call (a
 * cross-lane reduction per group cost as much as the rest of the meter), and sums run in a fixed
 * order that depends only on the sequence of calls: the lanes are 16 logical ones at every vector
 * width (1, 2 or 4 physical vectors, run one after the other), so the sums are the same bits at
 * every width. Not thread-safe: one meter per task.
 */
final class WeightChangeMeter {
    private static final VectorSpecies<Float> FLOATS = VectorWidth.FLOATS;
    /** Physical lanes: 4, 8 or 16. */
    private static final int W = FLOATS.length();
    /** Logical lanes: lane l sums the differences at l, l + 16, ... of each call. */
    private static final int LANES = 16;

    private final float[] callSquares = new float[LANES];
    private final double[] laneSquares = new double[LANES];
    private final float[] laneMax = new float[LANES];
    private double tailSquares;
    private double tailMax;

    /** Moves {@code fresh[from, from + n)} into {@code weights[at, at + n)}, measuring what changed. */
    void replace(float[] fresh, int from, float[] weights, int at, int n) {
        int body = n & -LANES;
        for (int part = 0; part < LANES; part += W) {
            FloatVector squares = FloatVector.zero(FLOATS);
            FloatVector largest = FloatVector.fromArray(FLOATS, laneMax, part);
            for (int k = part; k < body; k += LANES) {
                FloatVector now = FloatVector.fromArray(FLOATS, fresh, from + k);
                FloatVector d = now.sub(FloatVector.fromArray(FLOATS, weights, at + k));
                squares = d.fma(d, squares);
                largest = largest.max(d.abs());
                now.intoArray(weights, at + k);
            }
            largest.intoArray(laneMax, part);
            squares.intoArray(callSquares, part);
        }
        for (int l = 0; l < LANES; l++) laneSquares[l] += callSquares[l];
        for (int k = body; k < n; k++) {
            float d = fresh[from + k] - weights[at + k];
            tailSquares += (double) d * d;
            tailMax = Math.max(tailMax, Math.abs(d));
            weights[at + k] = fresh[from + k];
        }
    }

    CqGroupMap.Change change() {
        double sum = tailSquares;
        double max = tailMax;
        for (int l = 0; l < LANES; l++) {
            sum += laneSquares[l];
            max = Math.max(max, laneMax[l]);
        }
        return new CqGroupMap.Change(sum, max);
    }
}
