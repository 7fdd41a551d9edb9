package dev.needlewb.engine.cache;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A session's KV caches, one per distinct attention window of its layers: Needle 2 has one window for every
 * layer (one cache, layer {@code l} at index {@code l}); Needle 3 has its local layers' sliding window and its
 * global layers' none, so a ring of the window for the first and every position for the second.
 */
public final class LayerCaches {
    /** A cache of {@code layers} layers attending over {@code window} (0 = every earlier position). */
    @FunctionalInterface
    public interface Factory {
        KvCache make(int layers, int window);
    }

    private final KvCache[] caches;
    private final int[] cacheOf;
    private final int[] indexIn;

    public LayerCaches(int[] windows, Factory factory) {
        Map<Integer, List<Integer>> byWindow = new LinkedHashMap<>();
        for (int l = 0; l < windows.length; l++) byWindow.computeIfAbsent(windows[l], w -> new ArrayList<>()).add(l);
        caches = new KvCache[byWindow.size()];
        cacheOf = new int[windows.length];
        indexIn = new int[windows.length];
        int c = 0;
        for (var e : byWindow.entrySet()) {
            caches[c] = factory.make(e.getValue().size(), e.getKey());
            for (int i = 0; i < e.getValue().size(); i++) {
                cacheOf[e.getValue().get(i)] = c;
                indexIn[e.getValue().get(i)] = i;
            }
            c++;
        }
    }

    /** The cache that holds {@code layer}. */
    public KvCache cache(int layer) {
        return caches[cacheOf[layer]];
    }

    /** {@code layer}'s index within {@link #cache}. */
    public int index(int layer) {
        return indexIn[layer];
    }

    /** The one cache when every layer attends over the same window (Needle 2's), for the paths that hand a whole cache over. */
    public KvCache only() {
        if (caches.length != 1) throw new IllegalStateException("the layers attend over " + caches.length + " windows, not one cache");
        return caches[0];
    }

    /** How many caches (distinct windows) there are. */
    public int count() {
        return caches.length;
    }

    /** Cache {@code c} of {@link #count}. */
    public KvCache get(int c) {
        return caches[c];
    }

    /** Positions a session may reach (exclusive): every cache's. */
    public int maxPositions() {
        int most = Integer.MAX_VALUE;
        for (KvCache c : caches) most = Math.min(most, c.maxPositions());
        return most;
    }

    /** Bytes allocated for keys and values over every cache. */
    public long bytes() {
        long total = 0;
        for (KvCache c : caches) total += c.bytes();
        return total;
    }
}
