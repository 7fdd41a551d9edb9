package dev.needlewb.engine.grammar;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The allowed-token bitset of each automaton state for one grammar and one vocabulary, computed by
 * walking the token trie from the state (each shared prefix stepped once, dead branches cut at
 * their first symbol) and kept: in a decode most states recur (a string's interior, the same
 * position of the next case), so a mask is usually a lookup. Thread-safe; shared by every
 * generation over the same tools.
 */
public final class GrammarMasks {
    private static final int MAX_CACHED = 16_384;

    private final ToolCallGrammar grammar;
    private final TokenTrie tokens;
    private final int words;
    private final Map<Frame, long[]> cache = new ConcurrentHashMap<>();

    public GrammarMasks(ToolCallGrammar grammar, TokenTrie tokens) {
        this.grammar = grammar;
        this.tokens = tokens;
        this.words = (tokens.vocab() + 63) >>> 6;
    }

    public ToolCallGrammar grammar() {
        return grammar;
    }

    TokenTrie tokens() {
        return tokens;
    }

    /** The allowed tokens in {@code state} (do not modify). */
    long[] allowed(Frame state) {
        long[] mask = cache.get(state);
        if (mask != null) return mask;
        mask = compute(state);
        if (cache.size() >= MAX_CACHED) cache.clear();
        cache.put(state, mask);
        return mask;
    }

    /** The mask allowing only {@code token}. */
    long[] only(int token) {
        long[] mask = new long[words];
        mask[token >>> 6] |= 1L << token;
        return mask;
    }

    private long[] compute(Frame state) {
        long[] mask = new long[words];
        walk(0, state, mask);
        if (ToolCallGrammar.complete(state)) mask[tokens.eosId() >>> 6] |= 1L << tokens.eosId();
        return mask;
    }

    private void walk(int node, Frame state, long[] mask) {
        for (int e = tokens.firstChild(node), end = tokens.endChild(node); e < end; e++) {
            Frame next = state.step(tokens.childSymbol(e));
            if (next == null) continue;
            int child = tokens.childNode(e);
            for (int at = tokens.firstEnding(child), stop = tokens.endEnding(child); at < stop; at++) {
                int id = tokens.endingToken(at);
                mask[id >>> 6] |= 1L << id;
            }
            walk(child, next, mask);
        }
    }

    /** The state after token {@code id}, or null if the grammar refuses it; end of sequence leaves it as it is. */
    Frame advance(Frame state, int id) {
        if (id == tokens.eosId()) return ToolCallGrammar.complete(state) ? state : null;
        int[] symbols = tokens.symbols(id);
        if (symbols == null) return null;
        Frame f = state;
        for (int s : symbols) {
            f = f.step(s);
            if (f == null) return null;
        }
        return f;
    }

    int cachedStates() {
        return cache.size();
    }
}
