package dev.needlewb.engine.layer;

import dev.needlewb.engine.cache.Visibility;
import dev.needlewb.engine.kernel.Lanes;
import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The attention softmax of both cases of the forward. One query over the cache ({@link #ofKeys}) has its
 * visible scores side by side, the sinks then the window: under the library exponential a scalar pass in
 * index order; under the polynomial one {@link VectorExp} on the scores padded to whole vectors with their
 * sum on {@link Lanes}' 16 logical lanes. A prompt's query row ({@link #ofRow}) holds a score per prompt
 * position and masks the invisible ones: the sinks and the window are two runs, each exponentiated on the
 * 16-lane grid with a library tail past it ({@link Lanes#loopBound}), their sums added. Those are three
 * roundings of one function, each pinned by the digests of the outputs that use it.
 */
public final class Softmax {
    private static final VectorSpecies<Float> F = Lanes.F;

    private Softmax() {}

    /** {@code s[0, n) = softmax(s[0, n))}; under the polynomial exponential {@code s} has room for n rounded up to whole vectors. */
    public static void ofKeys(float[] s, int n, Arithmetic.Exponential exp) {
        if (exp == Arithmetic.Exponential.POLYNOMIAL) paddedVector(s, n);
        else scalar(s, n);
    }

    private static void scalar(float[] s, int n) {
        float max = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) max = Math.max(max, s[i]);
        float sum = 0f;
        for (int i = 0; i < n; i++) sum += s[i] = (float) Math.exp(s[i] - max);
        float inv = 1f / sum;
        for (int i = 0; i < n; i++) s[i] *= inv;
    }

    /**
     * The maximum (order-free), {@code exp(s - max)} lane by lane, their sum over the 16 logical lanes in
     * their fixed tree, one reciprocal. The scores are padded with -infinity to whole vectors, then their
     * exponentials with zeros, so every vector operation runs unmasked at one call site: a masked tail site
     * would be compiled apart, box its vectors and allocate on every step (AVX2 has no masked float add).
     */
    private static void paddedVector(float[] s, int n) {
        int whole = Math.ceilDiv(n, F.length()) * F.length();
        Arrays.fill(s, n, whole, Float.NEGATIVE_INFINITY);
        FloatVector maxes = FloatVector.broadcast(F, Float.NEGATIVE_INFINITY);
        for (int i = 0; i < whole; i += F.length()) maxes = maxes.max(FloatVector.fromArray(F, s, i));
        float max = maxes.reduceLanes(VectorOperators.MAX);
        VectorExp.expShifted(s, 0, whole, max);
        Arrays.fill(s, n, whole, 0f);
        float inv = 1f / Lanes.sumPadded(s, 0, n);
        for (int i = 0; i < whole; i += F.length()) FloatVector.fromArray(F, s, i).mul(inv).intoArray(s, i);
    }

    /**
     * The softmax of the scores {@code s[base, base + length)} of the query at prompt position {@code qpos}
     * (one score per position) over the keys it sees; 0 for the rest.
     */
    public static void ofRow(float[] s, int base, int length, Visibility visibility, int qpos) {
        int lo = visibility.windowStart(qpos);
        int sinkEnd = visibility.sinkEnd(qpos);
        float max = Math.max(max(s, base, sinkEnd), max(s, base + lo, qpos + 1 - lo));
        float sum = expShifted(s, base, sinkEnd, max) + expShifted(s, base + lo, qpos + 1 - lo, max);
        float inv = 1f / sum;
        Arrays.fill(s, base + sinkEnd, base + lo, 0f);
        Arrays.fill(s, base + qpos + 1, base + length, 0f);
        scale(s, base, sinkEnd, inv);
        scale(s, base + lo, qpos + 1 - lo, inv);
    }

    /** The largest of {@code a[off, off + n)} (-infinity for none); a maximum is the same in any order. */
    private static float max(float[] a, int off, int n) {
        int i = 0;
        float max = Float.NEGATIVE_INFINITY;
        int bound = Lanes.loopBound(n);
        if (bound > 0) {
            FloatVector m = FloatVector.fromArray(F, a, off);
            for (i = F.length(); i < bound; i += F.length()) m = m.max(FloatVector.fromArray(F, a, off + i));
            max = m.reduceLanes(VectorOperators.MAX);
        }
        for (; i < n; i++) max = Math.max(max, a[off + i]);
        return max;
    }

    /** {@code a[off, off + n) = exp(a - max)}; returns their sum. */
    private static float expShifted(float[] a, int off, int n, float max) {
        int bound = Lanes.loopBound(n);
        VectorExp.expShifted(a, off, bound, max);
        float total = Lanes.sumPadded(a, off, bound);
        for (int i = bound; i < n; i++) {
            float e = (float) Math.exp(a[off + i] - max);
            a[off + i] = e;
            total += e;
        }
        return total;
    }

    private static void scale(float[] a, int off, int n, float factor) {
        int i = 0;
        for (int bound = Lanes.loopBound(n); i < bound; i += F.length()) {
            FloatVector.fromArray(F, a, off + i).mul(factor).intoArray(a, off + i);
        }
        for (; i < n; i++) a[off + i] *= factor;
    }
}
