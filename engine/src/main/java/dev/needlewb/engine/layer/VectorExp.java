package dev.needlewb.engine.layer;

import dev.needlewb.engine.kernel.Lanes;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@code exp(x)} for {@code x <= 0}, lane by lane on float vectors of any width, for the vector
 * softmax, sigmoid gates and SiLU: Cody-Waite reduction {@code x = n ln2 + r} (|r| <= ln2 / 2, ln2
 * split in a short high part and a correction), a degree-7 polynomial for {@code e^r} evaluated by
 * fused multiply-adds (Cephes' expf coefficients), and {@code 2^n} built in the exponent bits. Checked
 * over [-87, 0]: at most 1.02 ulp from the exact value (Math.exp rounded to float is within 0.5 ulp).
 * Inputs below -87 give exp(-87) ~ 1.6e-38 instead of their smaller true value, an absolute error
 * under 2e-38, which a softmax (whose largest term is 1) cannot see. Only adds, multiplies, fused
 * multiply-adds and bit operations, so interpreted and compiled code give the same bits.
 *
 * <p>The entry points take arrays, and the polynomial is written once, inside the loop that loads
 * and stores: a vector passed to or returned from a method C2 did not inline is boxed (and C2 stops
 * inlining even small methods in a large compilation unit), so no vector crosses a call here.
 */
public final class VectorExp {
    private static final VectorSpecies<Float> F = Lanes.F;
    private static final float LOG2E = 1.44269504f;
    private static final float LN2_HIGH = 0.693359375f;
    private static final float LN2_LOW = -2.12194440e-4f;
    /** 1.5 * 2^23: adding and subtracting it rounds a float below 2^22 in magnitude to an integer. */
    private static final float ROUNDING = 0x1.8p23f;
    static final float LOWEST = -87f;
    /** Per calling thread: the exponentials of {@link #timesSigmoid}. */
    private static final ThreadLocal<float[]> EXPONENTIALS = ThreadLocal.withInitial(() -> new float[0]);

    private VectorExp() {}

    /** {@code a[off + i] = exp(a[off + i] - shift)} for {@code i < n}, {@code n} a multiple of the vector width. */
    public static void expShifted(float[] a, int off, int n, float shift) {
        exp(a, off, a, off, n, shift, false);
    }

    /**
     * {@code out[outOff + i] = x[xOff + i] * sigmoid(g[gOff + i])} for {@code i < n}, {@code n} a multiple
     * of the vector width: with {@code t = exp(-|g|)}, {@code sigmoid(g) = 1 / (1 + t)} for {@code g >= 0}
     * and {@code t / (1 + t)} below, so the exponential never overflows; a few ulps (the exp's 1.02 plus
     * the add and divide's roundings). {@code out} may be {@code x} or {@code g}.
     */
    public static void timesSigmoid(float[] x, int xOff, float[] g, int gOff, float[] out, int outOff, int n) {
        float[] t = EXPONENTIALS.get();
        if (t.length < n) EXPONENTIALS.set(t = new float[n]);
        exp(g, gOff, t, 0, n, 0f, true);
        for (int i = 0; i < n; i += F.length()) {
            FloatVector e = FloatVector.fromArray(F, t, i);
            FloatVector numerator = e.blend(1f, FloatVector.fromArray(F, g, gOff + i).compare(VectorOperators.GE, 0f));
            FloatVector.fromArray(F, x, xOff + i).mul(numerator.div(e.add(1f))).intoArray(out, outOff + i);
        }
    }

    /** {@code dst[i] = exp(v - shift)} with {@code v = src[i]}, or {@code -|src[i]|} when {@code negatedMagnitude}. */
    private static void exp(float[] src, int srcOff, float[] dst, int dstOff, int n, float shift, boolean negatedMagnitude) {
        for (int i = 0; i < n; i += F.length()) {
            FloatVector x = FloatVector.fromArray(F, src, srcOff + i);
            if (negatedMagnitude) x = x.abs().neg();
            x = x.sub(shift).max(LOWEST);
            FloatVector k = x.mul(LOG2E).add(ROUNDING).sub(ROUNDING);
            FloatVector r = k.fma(FloatVector.broadcast(F, -LN2_HIGH), x);
            r = k.fma(FloatVector.broadcast(F, -LN2_LOW), r);
            FloatVector p = FloatVector.broadcast(F, 1.9875691500e-4f);
            p = p.fma(r, FloatVector.broadcast(F, 1.3981999507e-3f));
            p = p.fma(r, FloatVector.broadcast(F, 8.3334519073e-3f));
            p = p.fma(r, FloatVector.broadcast(F, 4.1665795894e-2f));
            p = p.fma(r, FloatVector.broadcast(F, 1.6666665459e-1f));
            p = p.fma(r, FloatVector.broadcast(F, 5.0000001201e-1f));
            FloatVector e = p.fma(r.mul(r), r).add(1f);
            FloatVector twoToK = k.convert(VectorOperators.F2I, 0).reinterpretAsInts()
                    .add(127).lanewise(VectorOperators.LSHL, 23).reinterpretAsFloats();
            e.mul(twoToK).intoArray(dst, dstOff + i);
        }
    }
}
