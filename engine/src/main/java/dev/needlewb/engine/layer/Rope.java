package dev.needlewb.engine.layer;

/**
 * Rotary position embedding over halves: dim {@code i} pairs with {@code i + headDim/2},
 * {@code [x1 cos - x2 sin, x2 cos + x1 sin]}, angle {@code pos / theta^(2i / headDim)}; the angles and
 * their cosines and sines computed in double and stored as float32, one row of {@code headDim / 2} per
 * position. A table holds the rows of the consecutive positions one forward computes ({@link #moveTo}):
 * a prompt's, or the one position a decoding step is at, so its size follows the positions a run computes,
 * never the model's max_seq_len.
 */
public final class Rope {
    private final int half;
    private final int rows;
    /** {@code theta^(2i / headDim)} per pair, the divisor of each angle. */
    private final double[] wavelengths;
    private final float[] cos;
    private final float[] sin;

    /** A table of {@code rows} rows, none filled yet. */
    public Rope(int headDim, double theta, int rows) {
        this.half = headDim / 2;
        this.rows = rows;
        this.wavelengths = new double[half];
        for (int i = 0; i < half; i++) wavelengths[i] = Math.pow(theta, 2.0 * i / headDim);
        this.cos = new float[Math.multiplyExact(rows, half)];
        this.sin = new float[Math.multiplyExact(rows, half)];
    }

    /** Sets row {@code r} to position {@code first + r}, for every row: what a forward over those positions reads in every layer. */
    public void moveTo(int first) {
        for (int r = 0; r < rows; r++) fill(r, first + r);
    }

    private void fill(int row, int pos) {
        for (int i = 0; i < half; i++) {
            double angle = pos / wavelengths[i];
            cos[row * half + i] = (float) Math.cos(angle);
            sin[row * half + i] = (float) Math.sin(angle);
        }
    }

    /** Rotates every head of {@code x[off, off + heads * headDim)} by table row {@code row}. */
    public void apply(float[] x, int off, int heads, int row) {
        int t = row * half;
        for (int h = 0; h < heads; h++) {
            int base = off + h * 2 * half;
            for (int i = 0; i < half; i++) {
                float x1 = x[base + i];
                float x2 = x[base + half + i];
                float c = cos[t + i];
                float s = sin[t + i];
                x[base + i] = x1 * c - x2 * s;
                x[base + half + i] = x2 * c + x1 * s;
            }
        }
    }
}
