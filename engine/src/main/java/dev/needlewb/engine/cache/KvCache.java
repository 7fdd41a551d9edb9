package dev.needlewb.engine.cache;

/**
 * Keys (after k_norm and RoPE) and values of every layer for the positions a query can still see
 * ({@link Visibility}). Slots are {@code sinks} pinned ones plus a ring of {@code window}, or one per
 * position up to {@code maxPositions} without a window: that many at most ({@link #capacity}). The
 * storage follows the slots a session writes, not the capacity: it starts at {@link #INITIAL_SLOTS}
 * (or the capacity, if smaller) and doubles when a write needs a slot past it, so a header's
 * max_seq_len of 2^31 - 1 costs nothing until a run reaches those positions. Every read and write
 * addresses one kv head's {@code keyHeadDim} key or {@code valueHeadDim} value values.
 */
public abstract sealed class KvCache permits FloatKvCache, Int8KvCache {
    /** Slots allocated up front; the mini and released geometries' caches (256 slots) never grow. */
    static final int INITIAL_SLOTS = 256;
    /** Elements past the largest array a layer plane may have (the JVM refuses arrays of nearly 2^31). */
    private static final int ARRAY_HEADROOM = 1024;

    protected final int layers;
    protected final int kvHeads;
    /** A key head's width (and a query head's) and a value head's; {@code keyDim}, {@code valueDim} over every kv head. */
    protected final int keyHeadDim, valueHeadDim;
    protected final int keyDim, valueDim;
    protected final int window;
    protected final int sinks;
    private final Visibility visibility;
    protected final int capacity;
    private final int maxPositions;
    /** Slots allocated in every layer's arrays: the row stride of the dimension-major planes. */
    protected int slots;

    protected KvCache(int layers, int kvHeads, int keyHeadDim, int valueHeadDim, int window, int sinks, int maxPositions) {
        if (layers <= 0 || kvHeads <= 0 || keyHeadDim <= 0 || valueHeadDim <= 0 || window < 0 || sinks < 0 || maxPositions <= 0) {
            throw new IllegalArgumentException("layers " + layers + ", kv heads " + kvHeads + ", head dims " + keyHeadDim + "/" + valueHeadDim
                    + ", window " + window + ", sinks " + sinks + ", max positions " + maxPositions);
        }
        this.layers = layers;
        this.kvHeads = kvHeads;
        this.keyHeadDim = keyHeadDim;
        this.valueHeadDim = valueHeadDim;
        this.keyDim = Math.multiplyExact(kvHeads, keyHeadDim);
        this.valueDim = Math.multiplyExact(kvHeads, valueHeadDim);
        int kvDim = Math.max(keyDim, valueDim);
        this.window = window;
        this.sinks = sinks;
        this.maxPositions = maxPositions;
        this.visibility = new Visibility(window, sinks);
        this.capacity = (int) Math.min(maxPositions, window == 0 ? maxPositions : (long) sinks + window);
        if (capacity > maxSlots(kvDim)) {
            throw new IllegalArgumentException(capacity + " slots of kv width " + kvDim + " exceed one array per layer; at most "
                    + maxSlots(kvDim) + " (see positionLimit)");
        }
    }

    /**
     * The most slots a cache of kv width {@code kvDim} can hold: each layer plane is one array of
     * {@code slots * kvDim} values.
     */
    public static int maxSlots(int kvDim) {
        return (Integer.MAX_VALUE - ARRAY_HEADROOM) / kvDim;
    }

    /**
     * The most positions a session with this window can reach: any with a ring no larger than
     * {@link #maxSlots}, else {@link #maxSlots} (one slot per position).
     */
    public static int positionLimit(int kvDim, int window, int sinks) {
        int most = maxSlots(kvDim);
        return window != 0 && (long) sinks + window <= most ? Integer.MAX_VALUE : most;
    }

    /** Allocates the first slots; subclasses call it once their arrays exist. */
    protected final void allocateInitial() {
        int initial = Math.min(capacity, INITIAL_SLOTS);
        resize(initial);
        slots = initial;
    }

    /** Makes {@code slot} addressable, doubling the storage (up to the capacity) when it is not yet. */
    protected final void reserve(int slot) {
        if (slot < slots) return;
        int grown = (int) Math.min(capacity, Math.max(slot + 1L, 2L * slots));
        resize(grown);
        slots = grown;
    }

    /**
     * Reallocates every layer's arrays for {@code newSlots} slots, keeping the values of the slots
     * held so far ({@link #slots} of them; none on the first call).
     */
    protected abstract void resize(int newSlots);

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

    /** Stores {@code k[kOff, +keyDim)} and {@code v[vOff, +valueDim)} of {@code layer} at {@code pos}. */
    public abstract void write(int layer, int pos, float[] k, int kOff, float[] v, int vOff);

    /**
     * Stores the keys and values of a whole prompt's positions [0, positions) of {@code layer}
     * ({@code k} [positions, keyDim], {@code v} [positions, valueDim] row-major), only those that survive in the cache: the
     * pinned sinks and the last window positions (without a window, all). The ring ends in the same
     * state as after writing every position in order.
     */
    public void writePrompt(int layer, int positions, float[] k, float[] v) {
        writePrompt(layer, positions, k, v, 0, positions);
    }

    /**
     * {@link #writePrompt} for the prompt positions {@code [from, to)} only. The positions that survive
     * each have a slot of their own, so threads may write disjoint ranges of one prompt at once.
     */
    public void writePrompt(int layer, int positions, float[] k, float[] v, int from, int to) {
        int keyWidth = k.length / positions, valueWidth = v.length / positions;
        int keepFrom = window == 0 ? 0 : positions - window;
        for (int pos = from; pos < to; pos++) {
            if (pos >= keepFrom || pos < sinks) write(layer, pos, k, pos * keyWidth, v, pos * valueWidth);
        }
    }

    /**
     * {@code scores[sOff + p - from] = scale * dot(q[qOff, +keyHeadDim), key[layer, p] of kv head {@code head})} for
     * {@code p} in {@code [from, to)}.
     */
    public abstract void scores(int layer, int from, int to, int head, float[] q, int qOff, float scale, float[] scores, int sOff);

    /**
     * {@code out[outOff, +valueHeadDim) += sum over p in [from, to) of w[wOff + p - from] * value[layer, p]} of kv head
     * {@code head}.
     */
    public abstract void accumulate(int layer, int from, int to, int head, float[] w, int wOff, float[] out, int outOff);

    /**
     * {@link #scores} for two consecutive queries sharing a kv head: {@code q[qOff, +keyHeadDim)} into {@code s0}
     * and {@code q[qOff + keyHeadDim, +keyHeadDim)} into {@code s1}, each bit for bit what {@link #scores} gives it. A
     * cache overrides this when the two can share the work of reading the keys.
     */
    public void scores2(int layer, int from, int to, int head, float[] q, int qOff, float scale, float[] s0, float[] s1, int sOff) {
        scores(layer, from, to, head, q, qOff, scale, s0, sOff);
        scores(layer, from, to, head, q, qOff + keyHeadDim, scale, s1, sOff);
    }

    /**
     * {@link #accumulate} for two consecutive queries sharing a kv head: weights {@code w0} into
     * {@code out[outOff, +valueHeadDim)}, {@code w1} into {@code out[outOff + valueHeadDim, +valueHeadDim)}, each bit for bit as
     * {@link #accumulate}.
     */
    public void accumulate2(int layer, int from, int to, int head, float[] w0, float[] w1, int wOff, float[] out, int outOff) {
        accumulate(layer, from, to, head, w0, wOff, out, outOff);
        accumulate(layer, from, to, head, w1, wOff, out, outOff + valueHeadDim);
    }

    /** Bytes allocated for keys and values (they grow with the slots written, see {@link #reserve}). */
    public abstract long bytes();

    /**
     * One array of a layer's storage and where a slot's {@code width} values lie in it: slot-major at
     * {@code slot * width + i}, or dimension-major at {@code i * slots + slot}.
     */
    protected record Plane(Object array, int width, boolean slotMajor) {}

    /** The arrays that hold {@code layer}'s keys, values and their scales. */
    protected abstract Plane[] planes(int layer);

    /**
     * What this cache stores for positions {@code [from, to)} of every layer, in its own form (int8 codes with
     * their scales, or floats), to be put back bit for bit: a prompt prefix shared by many requests
     * ({@link dev.needlewb.engine.PrefixCache}). Each plane is held dimension-major or slot-major as in the cache.
     */
    public static final class Rows {
        private final int from;
        private final int to;
        private final Object[][] arrays;
        private final long bytes;

        private Rows(int from, int to, Object[][] arrays, long bytes) {
            this.from = from;
            this.to = to;
            this.arrays = arrays;
            this.bytes = bytes;
        }

        public long bytes() {
            return bytes;
        }
    }

    /** Empty rows for positions {@code [from, to)}, shaped for this cache; {@link #save} fills them. */
    public Rows newRows(int from, int to) {
        if (from < 0 || to <= from || to > maxPositions) throw new IllegalArgumentException("positions [" + from + ", " + to + ")");
        int n = to - from;
        Object[][] arrays = new Object[layers][];
        long bytes = 0;
        for (int l = 0; l < layers; l++) {
            Plane[] planes = planes(l);
            arrays[l] = new Object[planes.length];
            for (int i = 0; i < planes.length; i++) {
                Class<?> type = planes[i].array().getClass().componentType();
                arrays[l][i] = java.lang.reflect.Array.newInstance(type, n * planes[i].width());
                bytes += (long) n * planes[i].width() * (type == byte.class ? 1 : Float.BYTES);
            }
        }
        return new Rows(from, to, arrays, bytes);
    }

    /**
     * Copies what this cache holds for positions {@code [from, to)} into {@code rows}. The positions must still
     * be held: none of them may have been overwritten by a later position in the window's ring.
     */
    public void save(Rows rows, int from, int to) {
        copy(rows, from, to, true);
    }

    /** Puts positions {@code [from, to)} of {@code rows} back into their slots. */
    public void load(Rows rows, int from, int to) {
        if (from < to) {
            for (int p = from; p < to; p = slotRunEnd(p)) reserve(slot(Math.min(to, slotRunEnd(p)) - 1));
        }
        copy(rows, from, to, false);
    }

    private void copy(Rows rows, int from, int to, boolean save) {
        if (from < rows.from || to > rows.to || from > to) {
            throw new IllegalArgumentException("positions [" + from + ", " + to + ") outside rows [" + rows.from + ", " + rows.to + ")");
        }
        int n = rows.to - rows.from;
        for (int p = from; p < to; ) {
            int slot = slot(p);
            int run = Math.min(to - p, slotRunEnd(p) - p);
            int at = p - rows.from;
            for (int l = 0; l < layers; l++) {
                Plane[] planes = planes(l);
                for (int i = 0; i < planes.length; i++) {
                    Plane plane = planes[i];
                    Object held = rows.arrays[l][i];
                    int w = plane.width();
                    if (plane.slotMajor()) {
                        transfer(save, plane.array(), slot * w, held, at * w, run * w);
                    } else {
                        for (int dim = 0; dim < w; dim++) transfer(save, plane.array(), dim * slots + slot, held, dim * n + at, run);
                    }
                }
            }
            p += run;
        }
    }

    /** Copies {@code length} values from the cache's array to the held one when saving, back when loading. */
    private static void transfer(boolean save, Object cache, int cacheAt, Object held, int heldAt, int length) {
        if (save) System.arraycopy(cache, cacheAt, held, heldAt, length);
        else System.arraycopy(held, heldAt, cache, cacheAt, length);
    }

    /** The first position after {@code pos} whose slot does not follow {@code pos}'s (the sinks' end, the ring's wrap). */
    private int slotRunEnd(int pos) {
        if (window == 0) return maxPositions;
        if (pos < sinks) return sinks;
        return pos + window - (pos - sinks) % window;
    }
}
