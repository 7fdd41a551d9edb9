package dev.needlewb.engine.layer;

/** The two normalizations of the model, float32 (SPEC section 2). */
public final class Norms {
    static final double EPS = 1e-6;

    private Norms() {}

    /** {@code out = (1 + gain) * x / sqrt(mean(x^2) + 1e-6)} over {@code n} values (zero-centred gain). */
    public static void zcn(float[] x, int off, int n, float[] gain, int gainOff, float[] out, int outOff) {
        float inv = inverseRms(x, off, n);
        for (int i = 0; i < n; i++) out[outOff + i] = (1f + gain[gainOff + i]) * x[off + i] * inv;
    }

    /** {@code out = x / sqrt(mean(x^2) + 1e-6)}. */
    public static void rmsUnit(float[] x, int off, int n, float[] out, int outOff) {
        float inv = inverseRms(x, off, n);
        for (int i = 0; i < n; i++) out[outOff + i] = x[off + i] * inv;
    }

    static float inverseRms(float[] x, int off, int n) {
        float ss = 0f;
        for (int i = off; i < off + n; i++) ss += x[i] * x[i];
        return (float) (1.0 / Math.sqrt(ss / n + EPS));
    }

    public static float sigmoid(float x) {
        return (float) (1.0 / (1.0 + Math.exp(-x)));
    }
}
