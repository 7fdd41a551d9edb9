package dev.needlewb.reference;

/**
 * Upstream's KV fake quant {@code cq_fake_quant_kv} ({@code cq_quantize} with a codebook): per
 * group (head_dim zero-padded to the group) rotate by the normalised Walsh-Hadamard matrix
 * (float32 entries), take the L2 norm, pick the nearest codebook entry of each coordinate of the
 * unit vector (ties to the lower entry), store the norm as float16, rotate back; returned as
 * {@code x + (deq - x)}.
 */
public final class CqKvQuant implements KvQuantizer {
    private static final double MIN_NORM = 1e-12;

    private final double[] codebook;
    private final int group;
    private final double hadamardEntry;

    /** {@code codebook}: the sorted float32 centres already divided by sqrt(group), as the converter stores them. */
    public CqKvQuant(float[] codebook, int group) {
        if (codebook.length < 2) throw new IllegalArgumentException("a codebook needs at least 2 entries");
        this.codebook = new double[codebook.length];
        for (int i = 0; i < codebook.length; i++) {
            if (i > 0 && !(codebook[i] > codebook[i - 1])) {
                throw new IllegalArgumentException("codebook entries must increase: " + codebook[i - 1] + ", " + codebook[i]);
            }
            this.codebook[i] = codebook[i];
        }
        this.group = group;
        this.hadamardEntry = (float) (1.0 / Math.sqrt(group));
    }

    @Override
    public void quantize(double[] x, int off, int n, String site, int position, QuantWatch watch) {
        double[] buf = new double[group];
        for (int g = 0; g < n; g += group) {
            int len = Math.min(group, n - g);
            java.util.Arrays.fill(buf, 0.0);
            System.arraycopy(x, off + g, buf, 0, len);
            Hadamard.transform(buf, 0, group, hadamardEntry);
            double sum = 0;
            for (double r : buf) sum += r * r;
            double norm = Math.sqrt(sum);
            double divisor = Math.max(norm, MIN_NORM);
            double stored = Float16Round.round(norm);
            if (watch != null && Float16Round.round(norm * (1 - QuantWatch.RELATIVE_MARGIN))
                    != Float16Round.round(norm * (1 + QuantWatch.RELATIVE_MARGIN))) {
                watch.report(site + ".norm", position, g / group, norm);
            }
            for (int i = 0; i < group; i++) {
                double u = buf[i] / divisor;
                if (watch != null) {
                    double m = Math.abs(u) * QuantWatch.RELATIVE_MARGIN;
                    if (nearest(u - m) != nearest(u + m)) watch.report(site, position, g + i, u);
                }
                buf[i] = codebook[nearest(u)] * stored;
            }
            Hadamard.transform(buf, 0, group, hadamardEntry);
            for (int i = 0; i < len; i++) {
                double w = x[off + g + i];
                x[off + g + i] = w + (buf[i] - w);
            }
        }
    }

    /** numpy searchsorted (left) clipped to [1, K-1], then the closer neighbour, the lower one on a tie. */
    private int nearest(double u) {
        int pos = 0;
        while (pos < codebook.length && codebook[pos] < u) pos++;
        pos = Math.clamp(pos, 1, codebook.length - 1);
        return Math.abs(u - codebook[pos - 1]) <= Math.abs(u - codebook[pos]) ? pos - 1 : pos;
    }
}
