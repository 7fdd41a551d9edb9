package dev.needlewb.engine.layer;

/**
 * Needle 3's depthwise causal conv over each layer's raw q|k|v projections (upstream {@code MultiHeadAttention},
 * architecture.py:567-598), before the head norms and RoPE: {@code out[p] = sum_{j < taps} w[j] (.) raw[p - j] * ok_j(p)}
 * per channel, the taps in order from 0, where tap 0 is never masked and tap {@code j > 0} reads position
 * {@code p - j} only where the layer's own mask lets position p see it ({@code p - j >= 0}, and {@code j < window}
 * on a layer with a sliding window). An instance is a sequence's state: per layer the raw projections of its last
 * {@code taps - 1} positions, row {@code pos % (taps - 1)}, which the next forward's first rows read.
 */
public final class QkvConv {
    private final int taps;
    private final int width;
    private final int[] windows;
    private final int ringRows;
    private final float[][] rings;

    /** {@code layers} layers of {@code width} channels (q|k|v), {@code taps} taps, {@code windows[layer]} (0 = none). */
    public QkvConv(int layers, int taps, int width, int[] windows) {
        if (taps < 1) throw new IllegalArgumentException("conv of " + taps + " taps");
        this.taps = taps;
        this.width = width;
        this.windows = windows.clone();
        this.ringRows = taps - 1;
        this.rings = new float[layers][ringRows * width];
    }

    public int width() {
        return width;
    }

    /**
     * Row {@code r} (position {@code first + r}) of {@code out} (stride {@code outStride}) from the raw rows of this
     * forward ({@code raw} [rows, width]) and the layer's earlier positions; {@code w} [taps, width].
     */
    public void apply(int layer, float[] w, float[] raw, int first, int r, float[] out, int outOff) {
        int pos = first + r, window = windows[layer];
        int at = r * width;
        for (int c = 0; c < width; c++) out[outOff + c] = w[c] * raw[at + c];
        for (int j = 1; j < taps; j++) {
            if (pos - j < 0 || (window != 0 && j >= window)) break;
            float[] src;
            int from;
            if (r - j >= 0) {
                src = raw;
                from = (r - j) * width;
            } else {
                src = rings[layer];
                from = ((pos - j) % ringRows) * width;
            }
            int tap = j * width;
            for (int c = 0; c < width; c++) out[outOff + c] += w[tap + c] * src[from + c];
        }
    }

    /** How many earlier positions a layer keeps ({@code taps - 1}). */
    public int history() {
        return ringRows;
    }

    /** Copies the layer's raw row of {@code pos} (one of its last {@link #history} positions) into {@code out[off, off + width)}. */
    public void copyRow(int layer, int pos, float[] out, int off) {
        System.arraycopy(rings[layer], (pos % ringRows) * width, out, off, width);
    }

    /** Puts {@code row[off, off + width)} back as the layer's raw row of {@code pos} (a saved prefix restored). */
    public void putRow(int layer, int pos, float[] row, int off) {
        System.arraycopy(row, off, rings[layer], (pos % ringRows) * width, width);
    }

    /** Keeps the raw rows of positions {@code first .. first + rows - 1} that later positions still read. */
    public void remember(int layer, float[] raw, int first, int rows) {
        for (int r = Math.max(0, rows - ringRows); r < rows; r++) {
            System.arraycopy(raw, r * width, rings[layer], ((first + r) % ringRows) * width, width);
        }
    }
}
