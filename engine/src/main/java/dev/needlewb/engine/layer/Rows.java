package dev.needlewb.engine.layer;

import dev.needlewb.engine.kernel.Lanes;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/** Element-wise passes over one row, in both cases of the forward; each lane rounds exactly as the scalar tail. */
public final class Rows {
    private static final VectorSpecies<Float> F = Lanes.F;

    private Rows() {}

    /** {@code x[xOff + i] += a * v[vOff + i]} for {@code i < n}. */
    public static void addScaled(float[] x, int xOff, float a, float[] v, int vOff, int n) {
        int i = 0;
        for (int bound = Lanes.loopBound(n); i < bound; i += F.length()) {
            FloatVector.fromArray(F, x, xOff + i).add(FloatVector.fromArray(F, v, vOff + i).mul(a)).intoArray(x, xOff + i);
        }
        for (; i < n; i++) x[xOff + i] += a * v[vOff + i];
    }

    /** {@code x[xOff + i] += v[vOff + i]} for {@code i < n}. */
    public static void add(float[] x, int xOff, float[] v, int vOff, int n) {
        int i = 0;
        for (int bound = Lanes.loopBound(n); i < bound; i += F.length()) {
            FloatVector.fromArray(F, x, xOff + i).add(FloatVector.fromArray(F, v, vOff + i)).intoArray(x, xOff + i);
        }
        for (; i < n; i++) x[xOff + i] += v[vOff + i];
    }

    /**
     * {@code out[outOff + i] = x[xOff + i] * sigmoid(gate[gOff + i])}: with the polynomial exponential on
     * vectors up to {@link Lanes#loopBound} (the scalar tail and the library form take {@link Norms#sigmoid}).
     */
    public static void gate(float[] x, int xOff, float[] gate, int gOff, Arithmetic.Exponential exp, float[] out, int outOff, int n) {
        int i = 0;
        if (exp == Arithmetic.Exponential.POLYNOMIAL) {
            i = Lanes.loopBound(n);
            VectorExp.timesSigmoid(x, xOff, gate, gOff, out, outOff, i);
        }
        for (; i < n; i++) out[outOff + i] = x[xOff + i] * Norms.sigmoid(gate[gOff + i]);
    }
}
