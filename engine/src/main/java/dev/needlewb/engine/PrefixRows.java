package dev.needlewb.engine;

import dev.needlewb.engine.cache.KvCache;
import dev.needlewb.engine.cache.LayerCaches;
import dev.needlewb.engine.layer.QkvConv;

/**
 * What a {@link PrefixCache} keeps of prompt positions {@code [from, to)}: the KV rows of each of the session's
 * caches (one per attention window: Needle 3's local ring and global cache), and with a QKV conv each layer's raw
 * q|k|v projections of those positions (a restored session's conv reads the last {@code taps - 1} of them). Both
 * in the session's own form, to be put back bit for bit.
 */
final class PrefixRows {
    final int from, to;
    private final KvCache.Rows[] kv;
    /** [layer][(pos - from) * width + c], or null without a conv history. */
    private final float[][] conv;
    private final int width;
    private final long bytes;

    PrefixRows(LayerCaches caches, QkvConv qkvConv, int layers, int from, int to) {
        this.from = from;
        this.to = to;
        kv = new KvCache.Rows[caches.count()];
        long total = 0;
        for (int c = 0; c < kv.length; c++) {
            kv[c] = caches.get(c).newRows(from, to);
            total += kv[c].bytes();
        }
        boolean history = qkvConv != null && qkvConv.history() > 0;
        width = history ? qkvConv.width() : 0;
        conv = history ? new float[layers][(to - from) * width] : null;
        if (history) total += (long) layers * (to - from) * width * Float.BYTES;
        bytes = total;
    }

    long bytes() {
        return bytes;
    }

    /** Cache {@code c}'s rows. */
    KvCache.Rows kv(int c) {
        return kv[c];
    }

    /** Keeps every layer's raw projections of {@code pos}, the position {@code conv} ran last. */
    void keepConv(QkvConv qkvConv, int pos) {
        if (conv == null) return;
        for (int l = 0; l < conv.length; l++) qkvConv.copyRow(l, pos, conv[l], (pos - from) * width);
    }

    /** Puts the raw projections of {@code pos} back into {@code conv}'s history. */
    void restoreConv(QkvConv qkvConv, int pos) {
        if (conv == null) return;
        for (int l = 0; l < conv.length; l++) qkvConv.putRow(l, pos, conv[l], (pos - from) * width);
    }
}
