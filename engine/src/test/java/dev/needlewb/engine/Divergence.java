package dev.needlewb.engine;

/** KL divergence and argmax over logit rows (test helper). */
final class Divergence {
    private Divergence() {}

    /** KL(softmax(ref) || softmax(got)) in nats. */
    static double kl(double[] ref, int off, float[] got, int n) {
        double mr = Double.NEGATIVE_INFINITY, mg = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            mr = Math.max(mr, ref[off + i]);
            mg = Math.max(mg, got[i]);
        }
        double zr = 0, zg = 0;
        for (int i = 0; i < n; i++) {
            zr += Math.exp(ref[off + i] - mr);
            zg += Math.exp(got[i] - mg);
        }
        double lzr = mr + Math.log(zr), lzg = mg + Math.log(zg), kl = 0;
        for (int i = 0; i < n; i++) {
            double lp = ref[off + i] - lzr;
            kl += Math.exp(lp) * (lp - (got[i] - lzg));
        }
        return kl;
    }

    static int argmax(double[] x, int off, int n) {
        int best = 0;
        for (int i = 1; i < n; i++) if (x[off + i] > x[off + best]) best = i;
        return best;
    }

    static int argmax(float[] x, int off, int n) {
        int best = 0;
        for (int i = 1; i < n; i++) if (x[off + i] > x[off + best]) best = i;
        return best;
    }
}
