package dev.needlewb.reference;

/**
 * Rotary position embedding as upstream {@code apply_rope}: dimension i is paired with dimension
 * {@code i + headDim/2} (halves, not even/odd), angle {@code position / theta^(2i/headDim)}.
 */
public final class Rope {
    private final double[] inverseFrequency;

    public Rope(int headDim, double theta) {
        inverseFrequency = new double[headDim / 2];
        for (int i = 0; i < inverseFrequency.length; i++) {
            inverseFrequency[i] = 1.0 / Math.pow(theta, (double) (2 * i) / headDim);
        }
    }

    /** The cosines and sines for absolute positions {@code [from, from + count)}. */
    public Table positions(int from, int count) {
        int half = inverseFrequency.length;
        double[] cos = new double[count * half];
        double[] sin = new double[count * half];
        for (int t = 0; t < count; t++) {
            double p = from + t;
            for (int i = 0; i < half; i++) {
                double angle = p * inverseFrequency[i];
                cos[t * half + i] = Math.cos(angle);
                sin[t * half + i] = Math.sin(angle);
            }
        }
        return new Table(cos, sin, half);
    }

    public record Table(double[] cos, double[] sin, int half) {
        /** Rotates one head vector {@code x[off, off + 2*half)} in place for table row {@code row}. */
        public void rotate(double[] x, int off, int row) {
            int base = row * half;
            for (int i = 0; i < half; i++) {
                double x1 = x[off + i];
                double x2 = x[off + half + i];
                double c = cos[base + i];
                double s = sin[base + i];
                x[off + i] = x1 * c - x2 * s;
                x[off + half + i] = x2 * c + x1 * s;
            }
        }
    }
}
