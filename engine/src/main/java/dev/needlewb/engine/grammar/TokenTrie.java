package dev.needlewb.engine.grammar;

import dev.needlewb.core.tokenizer.PieceType;
import dev.needlewb.core.tokenizer.Tokenizer;
import dev.needlewb.core.tokenizer.TokenizerVocab;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every token's output as automaton symbols, computed once per tokenizer: a normal piece is its
 * UTF-8 with U+2581 as a space (what the decoder prints), a byte piece its byte, a chat marker one
 * marker symbol; control, unknown and other user-defined pieces are never allowed. The spellings
 * form a trie (children in flat arrays) so a mask walks each shared prefix once.
 */
public final class TokenTrie {
    private final int vocab;
    private final int eosId;
    private final int[][] symbols;
    /** Node n's children are childSymbol/childNode[firstChild[n] .. firstChild[n+1]). */
    private final int[] firstChild;
    private final int[] childSymbol;
    private final int[] childNode;
    /** Tokens spelled exactly as node n: endingTokens[firstEnding[n] .. firstEnding[n+1]). */
    private final int[] firstEnding;
    private final int[] endingTokens;

    public TokenTrie(Tokenizer tokenizer) {
        TokenizerVocab v = tokenizer.vocab();
        vocab = v.size();
        eosId = tokenizer.eosId();
        symbols = new int[vocab][];
        for (int id = 0; id < vocab; id++) symbols[id] = symbolsOf(v, id);
        List<Map<Integer, Integer>> children = new ArrayList<>();
        List<List<Integer>> endings = new ArrayList<>();
        children.add(new HashMap<>());
        endings.add(new ArrayList<>());
        for (int id = 0; id < vocab; id++) {
            if (symbols[id] == null) continue;
            int node = 0;
            for (int s : symbols[id]) {
                Integer child = children.get(node).get(s);
                if (child == null) {
                    child = children.size();
                    children.add(new HashMap<>());
                    endings.add(new ArrayList<>());
                    children.get(node).put(s, child);
                }
                node = child;
            }
            endings.get(node).add(id);
        }
        int nodes = children.size();
        firstChild = new int[nodes + 1];
        firstEnding = new int[nodes + 1];
        for (int n = 0; n < nodes; n++) {
            firstChild[n + 1] = firstChild[n] + children.get(n).size();
            firstEnding[n + 1] = firstEnding[n] + endings.get(n).size();
        }
        childSymbol = new int[firstChild[nodes]];
        childNode = new int[firstChild[nodes]];
        endingTokens = new int[firstEnding[nodes]];
        for (int n = 0; n < nodes; n++) {
            int at = firstChild[n];
            for (Map.Entry<Integer, Integer> e : children.get(n).entrySet()) {
                childSymbol[at] = e.getKey();
                childNode[at++] = e.getValue();
            }
            at = firstEnding[n];
            for (int id : endings.get(n)) endingTokens[at++] = id;
        }
    }

    private static int[] symbolsOf(TokenizerVocab v, int id) {
        PieceType type = v.type(id);
        return switch (type) {
            case BYTE -> new int[] {v.byteValue(id)};
            case USER_DEFINED -> {
                int marker = Symbols.marker(v.piece(id));
                yield marker < 0 ? null : new int[] {marker};
            }
            case NORMAL -> {
                byte[] bytes = v.piece(id).replace('\u2581', ' ').getBytes(StandardCharsets.UTF_8);
                if (bytes.length == 0) yield null;
                int[] out = new int[bytes.length];
                for (int i = 0; i < bytes.length; i++) out[i] = bytes[i] & 0xFF;
                yield out;
            }
            default -> null;
        };
    }

    public int vocab() {
        return vocab;
    }

    int eosId() {
        return eosId;
    }

    /** Token {@code id}'s symbols, or null if it is never allowed (do not modify). */
    int[] symbols(int id) {
        return symbols[id];
    }

    int nodes() {
        return firstChild.length - 1;
    }

    int firstChild(int node) {
        return firstChild[node];
    }

    int endChild(int node) {
        return firstChild[node + 1];
    }

    int childSymbol(int edge) {
        return childSymbol[edge];
    }

    int childNode(int edge) {
        return childNode[edge];
    }

    int firstEnding(int node) {
        return firstEnding[node];
    }

    int endEnding(int node) {
        return firstEnding[node + 1];
    }

    int endingToken(int at) {
        return endingTokens[at];
    }

    /** The token whose whole output is {@code symbol}, or -1 (the lowest id if several). */
    int singleSymbolToken(int symbol) {
        int node = -1;
        for (int e = firstChild[0]; e < firstChild[1]; e++) if (childSymbol[e] == symbol) node = childNode[e];
        if (node < 0 || firstEnding[node] == firstEnding[node + 1]) return -1;
        int best = Integer.MAX_VALUE;
        for (int at = firstEnding[node]; at < firstEnding[node + 1]; at++) best = Math.min(best, endingTokens[at]);
        return best;
    }
}
