package dev.needlewb.oracle;

/**
 * A float32 re-enactment of upstream's {@code export._cq_pack} for one group, used to test that
 * the oracle's rounding bounds hold for real float32 arithmetic. BLAS may sum in any order, so
 * the rotation is done in a chosen order (forward or backward); the bounds must hold for both.
 */
final class UpstreamFloat32 {
    record Result(int[] codes, float[] unit, float norm, short norm16) {}

    private UpstreamFloat32() {}

    static Result quantize(float[] w, float[] codebook, boolean backward) {
        int n = w.length;
        float h = (float) (1.0 / Math.sqrt(n));
        float[] rot = new float[n];
        for (int j = 0; j < n; j++) {
            float acc = 0f;
            for (int step = 0; step < n; step++) {
                int i = backward ? n - 1 - step : step;
                float entry = (Integer.bitCount(i & j) & 1) == 0 ? h : -h;
                acc += w[i] * entry;
            }
            rot[j] = acc;
        }
        float sumSquares = 0f;
        for (int j = 0; j < n; j++) {
            float sq = rot[backward ? n - 1 - j : j];
            sumSquares += sq * sq;
        }
        float norm = (float) Math.sqrt(sumSquares); // double sqrt then float rounding is correctly rounded
        float guard = Math.max(norm, 1e-12f);
        float[] unit = new float[n];
        int[] codes = new int[n];
        for (int j = 0; j < n; j++) {
            unit[j] = rot[j] / guard;
            codes[j] = nearest(unit[j], codebook);
        }
        return new Result(codes, unit, norm, Float.floatToFloat16(norm));
    }

    /** Upstream's {@code _nearest_idx}: searchsorted (left), clipped, then |x-left| <= |x-right| in float32. */
    static int nearest(float x, float[] cb) {
        int pos = 0;
        while (pos < cb.length && cb[pos] < x) pos++;
        pos = Math.clamp(pos, 1, cb.length - 1);
        return Math.abs(x - cb[pos - 1]) <= Math.abs(x - cb[pos]) ? pos - 1 : pos;
    }
}
