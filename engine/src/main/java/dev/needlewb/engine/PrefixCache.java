package dev.needlewb.engine;

import dev.needlewb.engine.cache.KvCache;
import dev.needlewb.engine.cache.LayerCaches;
import dev.needlewb.engine.layer.QkvConv;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Native prefill that steps only the part of a prompt no earlier prompt shared: the KV rows of every prompt
 * run are kept in a radix tree of token runs (as inference servers share prompt prefixes), and a new prompt
 * starts from the longest run of its leading tokens the tree holds, wherever it branches: after the system
 * turn, after the first tool of the tools block, in the middle of a tool. Stored are the KV rows of each of
 * the session's caches (Needle 3: its local layers' ring and its global layers' cache) and, with Needle 3's
 * QKV conv, each layer's raw projections of every position ({@link PrefixRows}); a restored session gets
 * its conv history from them and its token history and engram conv rings the way a batch-prefilled one does
 * ({@link Session#adoptPrefix}, the same steps on the same tokens). The steps run after that are the plain
 * prefill's, on the same state, so the logits are bit for bit those of {@link Session#prefill}. A session
 * pooling its hidden cells for the probe heads is prefilled plainly (the pool needs every position's cells).
 *
 * <p>Rows are saved while the prompt runs, before a window's ring overwrites them, so a prefix longer than
 * the window is shared too. The rows held are bounded by {@code budgetBytes}: the least recently used run
 * that no longer prompt extends goes first. Not thread-safe: one per engine instance and thread.
 */
public final class PrefixCache implements Prefill {
    private final Engine engine;
    private final long budgetBytes;
    private final Node root = new Node(new int[0], 0, 0, null);
    private final List<Node> nodes = new ArrayList<>();
    /** How many nodes use each rows object: a run split in two keeps one object. */
    private final Map<PrefixRows, Integer> holders = new IdentityHashMap<>();
    private long heldBytes;
    private long clock;
    private long reusedTokens;
    private long steppedTokens;

    /** A run of prompt positions {@code [from, to)} of {@code ids}, with its KV rows. */
    private static final class Node {
        final int[] ids;
        final int from;
        int to;
        final PrefixRows rows;
        Node parent;
        final Map<Integer, Node> children = new HashMap<>();
        long used;

        Node(int[] ids, int from, int to, PrefixRows rows) {
            this.ids = ids;
            this.from = from;
            this.to = to;
            this.rows = rows;
        }
    }

    public PrefixCache(Engine engine, long budgetBytes) {
        if (budgetBytes < 0) throw new IllegalArgumentException("budget " + budgetBytes + " bytes");
        this.engine = engine;
        this.budgetBytes = budgetBytes;
    }

    /**
     * Prefills {@code tokens} into {@code session}, a fresh session of this cache's engine (one at another
     * position is prefilled plainly) and returns a copy of the logits after the last token.
     */
    @Override
    public float[] prefill(Session session, int[] tokens) {
        if (session.weights() != engine.weights()) throw new IllegalArgumentException("the session belongs to another engine");
        if (session.position() != 0 || session.cells() != null) return session.prefill(tokens);
        session.checkPrefill(tokens);
        List<Node> path = new ArrayList<>();
        int held = match(tokens, path);
        int restored = Math.min(held, tokens.length - 1);
        restore(session, tokens, path, restored);
        LayerCaches caches = session.caches();
        QkvConv conv = session.conv();
        // Rows are made only when some of the prompt is new, and then the steps start where the tree ends (restored == held).
        PrefixRows rows = held < tokens.length ? new PrefixRows(caches, conv, engine.weights().s.numLayers(), held, tokens.length) : null;
        int[] saved = new int[caches.count()];
        Arrays.fill(saved, held);
        float[] logits = null;
        for (int pos = restored; pos < tokens.length; pos++) {
            // A ring slot is overwritten window positions later: save before that happens.
            for (int c = 0; rows != null && c < saved.length; c++) {
                KvCache cache = caches.get(c);
                if (cache.window() > 0 && pos - saved[c] == cache.window()) {
                    cache.save(rows.kv(c), saved[c], pos);
                    saved[c] = pos;
                }
            }
            if (pos == tokens.length - 1) logits = session.step(tokens[pos]).clone();
            else session.advance(tokens[pos]);
            if (rows != null) rows.keepConv(conv, pos);
        }
        reusedTokens += restored;
        steppedTokens += tokens.length - restored;
        long now = ++clock;
        for (Node n : path) n.used = now;
        if (rows != null) {
            for (int c = 0; c < saved.length; c++) caches.get(c).save(rows.kv(c), saved[c], tokens.length);
            insert(tokens.clone(), path, held, rows, now);
        }
        return logits;
    }

    /** The length of the longest prefix of {@code tokens} the tree holds; {@code path} gets its nodes. */
    private int match(int[] tokens, List<Node> path) {
        Node node = root;
        int matched = 0;
        while (matched < tokens.length) {
            Node child = node.children.get(tokens[matched]);
            if (child == null) break;
            int end = child.from;
            while (end < child.to && end < tokens.length && child.ids[end] == tokens[end]) end++;
            path.add(child);
            matched = end;
            if (end < child.to) break;
            node = child;
        }
        return matched;
    }

    /**
     * Puts the KV rows of positions {@code [0, length)} that a query at {@code length} can see through each cache
     * (the sinks and the window before it, or all) into the session, the raw projections of the positions its
     * QKV conv still reads, then its token history and engram rings.
     */
    private static void restore(Session session, int[] tokens, List<Node> path, int length) {
        if (length == 0) return;
        LayerCaches caches = session.caches();
        QkvConv conv = session.conv();
        int convFrom = conv == null ? length : Math.max(0, length - conv.history());
        for (Node n : path) {
            int to = Math.min(n.to, length);
            for (int c = 0; c < caches.count(); c++) {
                KvCache cache = caches.get(c);
                int windowFrom = cache.window() == 0 ? 0 : Math.max(0, length - cache.window());
                load(cache, n.rows.kv(c), n.from, Math.min(to, cache.sinks()));
                load(cache, n.rows.kv(c), Math.max(n.from, windowFrom), to);
            }
            for (int pos = Math.max(n.from, convFrom); pos < to; pos++) n.rows.restoreConv(conv, pos);
        }
        session.adoptPrefix(Arrays.copyOf(tokens, length));
    }

    private static void load(KvCache cache, KvCache.Rows rows, int from, int to) {
        if (from < to) cache.load(rows, from, to);
    }

    /** Adds the run {@code [held, ids.length)} below the matched path, splitting the node it branches from. */
    private void insert(int[] ids, List<Node> path, int held, PrefixRows rows, long now) {
        Node parent = root;
        if (!path.isEmpty()) {
            parent = path.getLast();
            if (held < parent.to) split(parent, held);
        }
        Node leaf = new Node(ids, held, ids.length, rows);
        leaf.used = now;
        attach(parent, leaf);
        nodes.add(leaf);
        holders.merge(rows, 1, Integer::sum);
        heldBytes += rows.bytes();
        while (heldBytes > budgetBytes) evictLeastRecentLeaf();
    }

    /** Cuts {@code node} at {@code at}: it keeps {@code [from, at)}, a new child takes the rest and its children. */
    private void split(Node node, int at) {
        Node rest = new Node(node.ids, at, node.to, node.rows);
        rest.used = node.used;
        rest.children.putAll(node.children);
        for (Node c : rest.children.values()) c.parent = rest;
        node.children.clear();
        node.to = at;
        attach(node, rest);
        nodes.add(rest);
        holders.merge(node.rows, 1, Integer::sum);
    }

    private static void attach(Node parent, Node child) {
        child.parent = parent;
        parent.children.put(child.ids[child.from], child);
    }

    private void evictLeastRecentLeaf() {
        Node oldest = null;
        for (Node n : nodes) {
            if (n.children.isEmpty() && (oldest == null || n.used < oldest.used)) oldest = n;
        }
        nodes.remove(oldest);
        oldest.parent.children.remove(oldest.ids[oldest.from]);
        if (holders.merge(oldest.rows, -1, Integer::sum) == 0) {
            holders.remove(oldest.rows);
            heldBytes -= oldest.rows.bytes();
        }
    }

    /** Prompt tokens whose state came from the tree instead of being stepped. */
    public long reusedTokens() {
        return reusedTokens;
    }

    /** Prompt tokens stepped. */
    public long steppedTokens() {
        return steppedTokens;
    }

    /** Bytes of KV rows (and Needle 3's conv rows) the tree holds. */
    public long heldBytes() {
        return heldBytes;
    }
}
