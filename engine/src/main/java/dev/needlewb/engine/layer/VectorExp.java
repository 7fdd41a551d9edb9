package dev.needlewb.engine.layer;

import dev.needlewb.engine.kernel.Lanes;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;

/**
 * {@code exp(x)} for {@code x <= 0} lane by lane on float vectors of any width, for the int8 profile's softmax: Cody-Waite
 * reduction {@code x = n ln2 + r} (|r| <= ln2 / 2, ln2 split in a short high part and a correction),
 * a degree-7 polynomial for {@code e^r} evaluated by fused multiply-adds (Cephes' expf coefficients),
 * and {@code 2^n} built in the exponent bits. Checked exhaustively over every float in [-87, 0]: at most
 * 1.02 ulp from the exact value (Math.exp rounded to float is within 0.5 ulp). Inputs below -87 give
 * exp(-87) ~ 1.6e-38 instead of their smaller true value, an absolute error under 2e-38, which a
 * softmax (whose largest term is 1) cannot see. Only adds, multiplies, fused multiply-adds and bit
 * operations, so interpreted and compiled code give the same bits.
 */
public final class VectorExp {
    private static final float LOG2E = 1.44269504f;
    private static final float LN2_HIGH = 0.693359375f;
    private static final float LN2_LOW = -2.12194440e-4f;
    /** 1.5 * 2^23: adding and subtracting it rounds a float below 2^22 in magnitude to an integer. */
    private static final float ROUNDING = 0x1.8p23f;
    static final float LOWEST = -87f;

    private VectorExp() {}

    public static FloatVector exp(FloatVector x) {
        x = x.max(LOWEST);
        FloatVector n = x.mul(LOG2E).add(ROUNDING).sub(ROUNDING);
        FloatVector r = n.fma(FloatVector.broadcast(Lanes.F, -LN2_HIGH), x);
        r = n.fma(FloatVector.broadcast(Lanes.F, -LN2_LOW), r);
        FloatVector p = FloatVector.broadcast(Lanes.F, 1.9875691500e-4f);
        p = p.fma(r, FloatVector.broadcast(Lanes.F, 1.3981999507e-3f));
        p = p.fma(r, FloatVector.broadcast(Lanes.F, 8.3334519073e-3f));
        p = p.fma(r, FloatVector.broadcast(Lanes.F, 4.1665795894e-2f));
        p = p.fma(r, FloatVector.broadcast(Lanes.F, 1.6666665459e-1f));
        p = p.fma(r, FloatVector.broadcast(Lanes.F, 5.0000001201e-1f));
        FloatVector e = p.fma(r.mul(r), r).add(1f);
        FloatVector twoToN = n.convert(VectorOperators.F2I, 0).reinterpretAsInts()
                .add(127).lanewise(VectorOperators.LSHL, 23).reinterpretAsFloats();
        return e.mul(twoToN);
    }

    /**
     * {@code 1 / (1 + exp(-x))} from {@code t = exp(-|x|)}: {@code 1 / (1 + t)} for {@code x >= 0},
     * {@code t / (1 + t)} below, so the exponential never overflows; a few ulps (the exp's 1.02 plus
     * the add and divide's roundings).
     */
    public static FloatVector sigmoid(FloatVector x) {
        FloatVector t = exp(x.abs().neg());
        FloatVector numerator = t.blend(1f, x.compare(VectorOperators.GE, 0f));
        return numerator.div(t.add(1f));
    }
}
