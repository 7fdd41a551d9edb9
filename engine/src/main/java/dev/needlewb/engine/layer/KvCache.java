package dev.needlewb.engine.layer;

/**
 * Keys (after k_norm and RoPE) and values of every layer for the positions a query can still see
 * ({@link Visibility}). Storage is {@code sinks} pinned slots plus a ring of {@code window} slots, or one slot per
 * position up to {@code maxPositions} without a window.
 */
public abstract sealed class KvCache permits FloatKvCache, Int8KvCache {
    protected final int layers;
    protected final int kvDim;
    protected final int window;
    protected final int sinks;
    private final Visibility visibility;
    protected final int capacity;
    private final int maxPositions;

    protected KvCache(int layers, int kvDim, int window, int sinks, int maxPositions) {
        if (window < 0 || sinks < 0 || maxPositions <= 0) {
            throw new IllegalArgumentException("window " + window + ", sinks " + sinks + ", max positions " + maxPositions);
        }
        this.layers = layers;
        this.kvDim = kvDim;
        this.window = window;
        this.sinks = sinks;
        this.maxPositions = maxPositions;
        this.visibility = new Visibility(window, sinks);
        this.capacity = window == 0 ? maxPositions : Math.min(maxPositions, sinks + window);
    }

    public int window() {
        return window;
    }

    public int sinks() {
        return sinks;
    }

    /** Positions a session may reach (exclusive). */
    public int maxPositions() {
        return maxPositions;
    }

    /** Which positions a query sees. */
    public Visibility visibility() {
        return visibility;
    }

    protected int slot(int pos) {
        if (pos >= maxPositions) throw new IllegalStateException("position " + pos + " beyond the cache's " + maxPositions);
        if (window == 0 || pos < sinks) return pos;
        return sinks + (pos - sinks) % window;
    }

    /** Stores {@code k[kOff, +kvDim)} and {@code v[vOff, +kvDim)} of {@code layer} at {@code pos}. */
    public abstract void write(int layer, int pos, float[] k, int kOff, float[] v, int vOff);

    /**
     * Stores the keys and values of a whole prompt's positions [0, positions) of {@code layer}
     * ({@code k}, {@code v} [positions, kvDim] row-major), only those that survive in the cache: the
     * pinned sinks and the last window positions (without a window, all). The ring ends in the same
     * state as after writing every position in order.
     */
    public void writePrompt(int layer, int positions, float[] k, float[] v) {
        int width = k.length / positions;
        int keepFrom = window == 0 ? 0 : positions - window;
        for (int pos = 0; pos < positions; pos++) {
            if (pos >= keepFrom || pos < sinks) write(layer, pos, k, pos * width, v, pos * width);
        }
    }

    /**
     * {@code scores[sOff + p - from] = scale * dot(q[qOff, +n), key[layer, p][dimOff, +n))} for
     * {@code p} in {@code [from, to)}; {@code n} a multiple of 16.
     */
    public abstract void scores(int layer, int from, int to, int dimOff, int n, float[] q, int qOff, float scale,
            float[] scores, int sOff);

    /** {@code out[outOff, +n) += sum over p in [from, to) of w[wOff + p - from] * value[layer, p][dimOff, +n)}. */
    public abstract void accumulate(int layer, int from, int to, int dimOff, int n, float[] w, int wOff, float[] out, int outOff);

    /**
     * {@link #scores} for two consecutive queries sharing a kv head: {@code q[qOff, +n)} into {@code s0}
     * and {@code q[qOff + n, +n)} into {@code s1}, each bit for bit what {@link #scores} gives it. A
     * cache overrides this when the two can share the work of reading the keys.
     */
    public void scores2(int layer, int from, int to, int dimOff, int n, float[] q, int qOff, float scale,
            float[] s0, float[] s1, int sOff) {
        scores(layer, from, to, dimOff, n, q, qOff, scale, s0, sOff);
        scores(layer, from, to, dimOff, n, q, qOff + n, scale, s1, sOff);
    }

    /**
     * {@link #accumulate} for two consecutive queries sharing a kv head: weights {@code w0} into
     * {@code out[outOff, +n)}, {@code w1} into {@code out[outOff + n, +n)}, each bit for bit as {@link #accumulate}.
     */
    public void accumulate2(int layer, int from, int to, int dimOff, int n, float[] w0, float[] w1, int wOff,
            float[] out, int outOff) {
        accumulate(layer, from, to, dimOff, n, w0, wOff, out, outOff);
        accumulate(layer, from, to, dimOff, n, w1, wOff, out, outOff + n);
    }

    /** Bytes held for keys and values. */
    public abstract long bytes();

    /** Makes this cache hold exactly what {@code other} holds (a cache of the same engine and options). */
    public abstract void copyFrom(KvCache other);

    protected void checkSameShape(KvCache other) {
        if (other.getClass() != getClass() || other.layers != layers || other.kvDim != kvDim || other.window != window
                || other.sinks != sinks || other.maxPositions != maxPositions) {
            throw new IllegalArgumentException("cannot copy a " + other.getClass().getSimpleName() + " of another shape");
        }
    }

    protected static void copyRows(float[][] from, float[][] to) {
        for (int i = 0; i < from.length; i++) System.arraycopy(from[i], 0, to[i], 0, from[i].length);
    }

    protected static void copyRows(byte[][] from, byte[][] to) {
        for (int i = 0; i < from.length; i++) System.arraycopy(from[i], 0, to[i], 0, from[i].length);
    }
}
