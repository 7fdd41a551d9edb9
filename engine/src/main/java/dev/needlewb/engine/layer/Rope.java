package dev.needlewb.engine.layer;

/**
 * Rotary position embedding over halves: dim {@code i} pairs with {@code i + headDim/2},
 * {@code [x1 cos - x2 sin, x2 cos + x1 sin]}, angle {@code pos / theta^(2i / headDim)}; tables
 * computed in double and stored as float32.
 */
public final class Rope {
    private final int half;
    private final float[] cos;
    private final float[] sin;

    public Rope(int headDim, int positions, double theta) {
        this.half = headDim / 2;
        this.cos = new float[positions * half];
        this.sin = new float[positions * half];
        for (int p = 0; p < positions; p++) {
            for (int i = 0; i < half; i++) {
                double angle = p / Math.pow(theta, 2.0 * i / headDim);
                cos[p * half + i] = (float) Math.cos(angle);
                sin[p * half + i] = (float) Math.sin(angle);
            }
        }
    }

    /** Rotates every head of {@code x[off, off + heads * headDim)} for position {@code pos}. */
    public void apply(float[] x, int off, int heads, int pos) {
        int t = pos * half;
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
