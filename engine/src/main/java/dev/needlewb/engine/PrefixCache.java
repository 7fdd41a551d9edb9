package dev.needlewb.engine;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Native prefill that runs a prompt prefix shared by many prompts (the tool-call template's system turn and
 * tools) once: the session state after the prefix is kept, copied into the session of every later prompt that
 * starts with it ({@link Session#copyFrom}), and only the rest is stepped. The steps run are the same, in the same
 * order, on the same state, so the logits are bit for bit those of a plain native prefill. The least recently used
 * prefix goes first when more than {@code capacity} are held (each holds a session: its KV cache and buffers).
 */
public final class PrefixCache {
    private final Engine engine;
    private final Map<Prefix, Held> entries;
    private long hits;
    private long misses;

    private record Prefix(int[] ids) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Prefix p && Arrays.equals(ids, p.ids);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(ids);
        }
    }

    private record Held(Session session, float[] logits) {}

    public PrefixCache(Engine engine, int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("capacity " + capacity);
        this.engine = engine;
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Prefix, Held> eldest) {
                return size() > capacity;
            }
        };
    }

    /** A prefill for prompts whose first {@code prefixLength} ids are the shared prefix (0: nothing shared). */
    public Prefill sharing(int prefixLength) {
        return (session, tokens) -> prefill(session, tokens, prefixLength);
    }

    private float[] prefill(Session session, int[] tokens, int prefixLength) {
        if (prefixLength <= 0 || prefixLength > tokens.length || session.position() != 0) return session.prefill(tokens);
        session.checkPrefill(tokens);
        Prefix key = new Prefix(Arrays.copyOf(tokens, prefixLength));
        Held entry = entries.get(key);
        if (entry == null) {
            misses++;
            Session prefixed = engine.newSession();
            entry = new Held(prefixed, prefixed.prefill(key.ids()));
            entries.put(key, entry);
        } else {
            hits++;
        }
        session.copyFrom(entry.session());
        if (prefixLength == tokens.length) return entry.logits().clone();
        return session.prefill(Arrays.copyOfRange(tokens, prefixLength, tokens.length));
    }

    /** Prompts whose prefix was already held. */
    public long hits() {
        return hits;
    }

    /** Prompts whose prefix had to be prefilled. */
    public long misses() {
        return misses;
    }
}
