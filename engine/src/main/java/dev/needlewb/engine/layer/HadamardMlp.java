package dev.needlewb.engine.layer;

import dev.needlewb.engine.kernel.Hadamard;
import dev.needlewb.engine.kernel.Lanes;
import jdk.incubator.vector.FloatVector;

/**
 * The Hadamard MLP: {@code z = (d1 * pad(x)) H; z = silu(d2 * z) H; out = crop(d3 * z)} with H the
 * orthonormal Walsh-Hadamard matrix of size {@code n} (a power of two >= d), applied by FWHT.
 * The library exponential takes the SiLU with {@link Math#exp}; the polynomial one as {@code t * sigmoid(t)} on vectors
 * with {@link VectorExp#timesSigmoid} (lane by lane, so any width gives the same bits).
 */
public final class HadamardMlp implements Mlp {
    private final int d;
    private final int n;
    private final float[] d1, d2, d3;

    /** The MLP of width {@code d} with the layer's diagonals {@code d1, d2, d3} (length n). */
    public HadamardMlp(int d, int n, float[] d1, float[] d2, float[] d3) {
        if (!Hadamard.isPowerOfTwo(n) || n < d) throw new IllegalArgumentException("Hadamard length " + n + " for width " + d);
        this.d = d;
        this.n = n;
        this.d1 = d1;
        this.d2 = d2;
        this.d3 = d3;
    }

    @Override
    public int scratchLength() {
        return n;
    }

    @Override
    public void apply(float[] x, int xOff, float[] out, int outOff, float[] z, Arithmetic.Exponential exp) {
        boolean vectorSilu = exp == Arithmetic.Exponential.POLYNOMIAL && n % Lanes.LOGICAL == 0;
        for (int i = 0; i < d; i++) z[i] = d1[i] * x[xOff + i];
        java.util.Arrays.fill(z, d, n, 0f);
        Hadamard.transform(z, 0, n);
        if (vectorSilu) {
            for (int i = 0; i < n; i += Lanes.W) {
                FloatVector.fromArray(Lanes.F, d2, i).mul(FloatVector.fromArray(Lanes.F, z, i)).intoArray(z, i);
            }
            VectorExp.timesSigmoid(z, 0, z, 0, z, 0, n);
        } else {
            for (int i = 0; i < n; i++) {
                float t = d2[i] * z[i];
                z[i] = t / (1f + (float) Math.exp(-t));
            }
        }
        Hadamard.transform(z, 0, n);
        for (int i = 0; i < d; i++) out[outOff + i] = d3[i] * z[i];
    }
}
