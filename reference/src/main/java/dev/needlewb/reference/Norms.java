package dev.needlewb.reference;

/** The two RMS normalisations of the model and the logistic functions, in upstream's operation order. */
public final class Norms {
    /** Epsilon of every RMS normalisation upstream (ZCRMSNorm, _rms_unit, decode._zcrms). */
    public static final double EPS = 1e-6;

    private Norms() {}

    private static double meanSquare(double[] x, int off, int n) {
        double s = 0;
        for (int i = 0; i < n; i++) s += x[off + i] * x[off + i];
        return s / n;
    }

    /** {@code rms_unit}: {@code x * rsqrt(mean(x^2) + eps)}, written to {@code out} (may alias x). */
    public static void rmsUnit(double[] x, int off, int n, double[] out, int outOff) {
        double r = 1.0 / Math.sqrt(meanSquare(x, off, n) + EPS);
        for (int i = 0; i < n; i++) out[outOff + i] = x[off + i] * r;
    }

    /** Zero-centred RMS norm: {@code (1 + g) * x / sqrt(mean(x^2) + eps)}, written to {@code out} (may alias x). */
    public static void zcn(double[] x, int off, int n, double[] gain, int gainOff, double[] out, int outOff) {
        double rms = Math.sqrt(meanSquare(x, off, n) + EPS);
        for (int i = 0; i < n; i++) out[outOff + i] = (1 + gain[gainOff + i]) * x[off + i] / rms;
    }

    /** {@link #zcn} applied to every row of {@code x [rows, n]}, into a new array. */
    public static double[] zcnRows(double[] x, int rows, int n, double[] gain) {
        double[] out = new double[x.length];
        RowChunks.forEach(rows, (from, to) -> {
            for (int r = from; r < to; r++) zcn(x, r * n, n, gain, 0, out, r * n);
        });
        return out;
    }

    public static double sigmoid(double x) {
        return 1.0 / (1.0 + Math.exp(-x));
    }

    public static double silu(double x) {
        return x * sigmoid(x);
    }
}
