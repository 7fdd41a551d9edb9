package dev.needlewb.reports.parity;

/**
 * How far an engine's tap is from the reference's, over all its values: largest absolute error,
 * RMS error, relative L2 (||e - r|| / ||r||), cosine similarity, and the largest error measured in
 * float32 ulps of the reference value (so errors on tiny values, which float32 cannot hold more
 * finely, show as what they are).
 */
public record TapMetrics(double maxAbs, double rms, double relL2, double cosine, double maxUlps) {

    public static TapMetrics of(double[] reference, float[] engine) {
        if (reference.length != engine.length) {
            throw new IllegalArgumentException("reference has " + reference.length + " values, engine " + engine.length);
        }
        double maxAbs = 0, sumSqErr = 0, sumSqRef = 0, sumSqEng = 0, dot = 0, maxUlps = 0;
        for (int i = 0; i < reference.length; i++) {
            double r = reference[i], e = engine[i], err = Math.abs(e - r);
            maxAbs = Math.max(maxAbs, err);
            sumSqErr += err * err;
            sumSqRef += r * r;
            sumSqEng += e * e;
            dot += r * e;
            maxUlps = Math.max(maxUlps, err / Math.ulp((float) r));
        }
        double relL2 = sumSqRef > 0 ? Math.sqrt(sumSqErr / sumSqRef) : sumSqErr == 0 ? 0 : Double.POSITIVE_INFINITY;
        double cosine = sumSqRef > 0 && sumSqEng > 0 ? dot / Math.sqrt(sumSqRef * sumSqEng) : sumSqRef == sumSqEng ? 1 : 0;
        return new TapMetrics(maxAbs, Math.sqrt(sumSqErr / Math.max(1, reference.length)), relL2, cosine, maxUlps);
    }
}
