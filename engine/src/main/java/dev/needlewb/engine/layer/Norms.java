package dev.needlewb.engine.layer;

import dev.needlewb.engine.kernel.Lanes;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The two normalizations of the model, float32 (SPEC section 2). The sum of squares runs in index
 * order or on {@link Lanes}' 16 logical lanes, as the caller's {@link Arithmetic.Sums} says; the element-wise part is
 * the same in both and is vectorized without changing a bit (each lane rounds exactly like the
 * scalar expression).
 */
public final class Norms {
    static final double EPS = 1e-6;
    private static final VectorSpecies<Float> F = Lanes.F;

    private Norms() {}

    /** {@code out = (1 + gain) * x / sqrt(mean(x^2) + 1e-6)} over {@code n} values (zero-centred gain). */
    public static void zcn(Arithmetic.Sums sums, float[] x, int off, int n, float[] gain, int gainOff, float[] out, int outOff) {
        float inv = inverseRms(sums, x, off, n);
        int i = 0;
        for (; i < Lanes.loopBound(n); i += F.length()) {
            FloatVector.fromArray(F, gain, gainOff + i).add(1f).mul(FloatVector.fromArray(F, x, off + i)).mul(inv)
                    .intoArray(out, outOff + i);
        }
        for (; i < n; i++) out[outOff + i] = (1f + gain[gainOff + i]) * x[off + i] * inv;
    }

    /** {@code out = x / sqrt(mean(x^2) + 1e-6)}. */
    public static void rmsUnit(Arithmetic.Sums sums, float[] x, int off, int n, float[] out, int outOff) {
        float inv = inverseRms(sums, x, off, n);
        int i = 0;
        for (; i < Lanes.loopBound(n); i += F.length()) FloatVector.fromArray(F, x, off + i).mul(inv).intoArray(out, outOff + i);
        for (; i < n; i++) out[outOff + i] = x[off + i] * inv;
    }

    /** {@code 1 / sqrt(mean(x^2) + 1e-6)} over {@code n} values, the sum of squares in the order {@code sums} names. */
    public static float inverseRms(Arithmetic.Sums sums, float[] x, int off, int n) {
        float ss = 0f;
        if (sums == Arithmetic.Sums.LANES) ss = Lanes.dotAll(x, off, x, off, n);
        else for (int i = off; i < off + n; i++) ss += x[i] * x[i];
        return (float) (1.0 / Math.sqrt(ss / n + EPS));
    }

    public static float sigmoid(float x) {
        return (float) (1.0 / (1.0 + Math.exp(-x)));
    }
}
