package dev.needlewb.core.tokenizer;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Greedy BPE over the code points of text segments, in O(n log n): the symbols form a linked
 * list and every adjacent pair that spells a piece waits in a heap ordered by piece score (high
 * first) then position (left first). That is the pair upstream's quadratic loop picks each
 * round; heap entries made stale by a merge are recognised and dropped when popped. Scratch
 * space for one encode call; not thread-safe.
 */
final class BpeSegment {
    private final String text;
    private final Tokenizer tokenizer;
    private final int[] start;
    private final int[] end;
    private final int[] prev;
    private final int[] next;
    private final int[] pairId;
    private final boolean[] alive;
    private final LongHeap heap;

    BpeSegment(String text, Tokenizer tokenizer) {
        this.text = text;
        this.tokenizer = tokenizer;
        int n = text.length();
        start = new int[n];
        end = new int[n];
        prev = new int[n];
        next = new int[n];
        pairId = new int[n];
        alive = new boolean[n];
        heap = new LongHeap(n);
    }

    /** Appends the ids of {@code text[from, to)} (char indices on code point boundaries). */
    void encode(int from, int to, Tokenizer.IdSink out) {
        if (from == to) return;
        int count = 0;
        for (int i = from; i < to; i += Character.charCount(text.codePointAt(i))) {
            start[count] = i;
            end[count] = i + Character.charCount(text.codePointAt(i));
            prev[count] = count - 1;
            next[count] = count + 1;
            alive[count] = true;
            count++;
        }
        next[count - 1] = -1;
        heap.clear();
        for (int s = 0; s + 1 < count; s++) offerPair(s);
        while (!heap.isEmpty()) {
            long key = heap.poll();
            int left = (int) (key & 0x7FFF_FFFF);
            long rank = key >>> 31;
            if (!alive[left] || pairId[left] < 0 || rankOf(pairId[left]) != rank) continue;
            merge(left);
        }
        for (int s = 0; s >= 0; s = next[s]) emit(text.substring(start[s], end[s]), out);
    }

    private void merge(int left) {
        int right = next[left];
        end[left] = end[right];
        alive[right] = false;
        next[left] = next[right];
        if (next[right] >= 0) prev[next[right]] = left;
        offerPair(left);
        if (prev[left] >= 0) offerPair(prev[left]);
    }

    /** Records the piece (if any) that symbol s and its right neighbour spell, and queues it. */
    private void offerPair(int s) {
        int right = next[s];
        pairId[s] = -1;
        if (right < 0 || end[right] - start[s] > tokenizer.maxPieceChars()) return;
        int id = tokenizer.idOf(text.substring(start[s], end[right]));
        pairId[s] = id;
        if (id >= 0) heap.add(rankOf(id) << 31 | s);
    }

    /**
     * Heap rank of a piece, in [0, 2^32): lower for a higher score. Adding +0f folds -0 into +0 (upstream's
     * comparison treats them as equal); the xor maps float order onto int order.
     */
    private long rankOf(int id) {
        int bits = Float.floatToIntBits(tokenizer.score(id) + 0f);
        int ordered = bits ^ ((bits >> 31) & 0x7FFF_FFFF);
        return (long) Integer.MAX_VALUE - ordered;
    }

    private void emit(String symbol, Tokenizer.IdSink out) {
        int id = tokenizer.idOf(symbol);
        if (id >= 0) {
            out.add(id);
        } else if (tokenizer.vocab().byteFallback()) {
            for (byte b : symbol.getBytes(StandardCharsets.UTF_8)) out.add(tokenizer.idOfUnknownByte(b & 0xFF));
        } else {
            out.add(tokenizer.vocab().unkId());
        }
    }

    /** A binary min-heap of longs. */
    static final class LongHeap {
        private long[] items;
        private int size;

        LongHeap(int capacity) {
            items = new long[Math.max(capacity, 4)];
        }

        void clear() { size = 0; }

        boolean isEmpty() { return size == 0; }

        void add(long item) {
            if (size == items.length) items = Arrays.copyOf(items, size * 2);
            int i = size++;
            while (i > 0) {
                int parent = (i - 1) >>> 1;
                if (items[parent] <= item) break;
                items[i] = items[parent];
                i = parent;
            }
            items[i] = item;
        }

        long poll() {
            long top = items[0];
            long last = items[--size];
            int i = 0;
            while (true) {
                int child = 2 * i + 1;
                if (child >= size) break;
                if (child + 1 < size && items[child + 1] < items[child]) child++;
                if (items[child] >= last) break;
                items[i] = items[child];
                i = child;
            }
            items[i] = last;
            return top;
        }
    }
}
