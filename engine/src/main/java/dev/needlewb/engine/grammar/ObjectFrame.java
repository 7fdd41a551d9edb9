package dev.needlewb.engine.grammar;

/**
 * An object being written: {@code seen} the keys written (bit per key), {@code key} the node in the
 * key trie while a key is spelled (KEY), else the key being given a value.
 */
record ObjectFrame(SchemaNode.ObjectNode node, long seen, int phase, int key, Container parent) implements Frame.Container {
    static final int FIRST = 0, KEY = 1, COLON = 2, VALUE = 3, IN_VALUE = 4, AFTER_VALUE = 5, AFTER_COMMA = 6;

    @Override
    public Frame step(int b) {
        return switch (phase) {
            case FIRST -> b == '}' && (node.required() & ~seen) == 0 ? parent.afterValue() : b == '"' ? key(0, b) : null;
            case AFTER_COMMA -> b == '"' ? key(0, b) : null;
            case KEY -> key(key, b);
            case COLON -> b == ':' ? with(VALUE, key) : null;
            case VALUE -> Frame.startValue(node.values().get(key), with(IN_VALUE, key), b);
            case AFTER_VALUE -> {
                if (b == ',' && unseenBelow(0)) yield with(AFTER_COMMA, -1);
                yield b == '}' && (node.required() & ~seen) == 0 ? parent.afterValue() : null;
            }
            default -> null;
        };
    }

    private Frame key(int trieNode, int b) {
        int child = b < 256 ? node.keys().child(trieNode, b) : -1;
        if (child < 0 || !unseenBelow(child)) return null;
        int word = node.keys().wordAt(child);
        return word >= 0 ? with(COLON, word) : with(KEY, child);
    }

    private boolean unseenBelow(int trieNode) {
        for (int w : node.keys().wordsBelow(trieNode)) if ((seen >>> w & 1) == 0) return true;
        return false;
    }

    private ObjectFrame with(int p, int k) {
        return new ObjectFrame(node, seen, p, k, parent);
    }

    @Override
    public Frame afterValue() {
        return new ObjectFrame(node, seen | 1L << key, AFTER_VALUE, -1, parent);
    }

    @Override
    public int need() {
        return switch (phase) {
            case FIRST -> node.restAfter(seen, true);
            case AFTER_VALUE -> node.restAfter(seen, false);
            case IN_VALUE -> node.restAfter(seen | 1L << key, false);
            case VALUE -> Need.add(node.values().get(key).minBytes(), node.restAfter(seen | 1L << key, false));
            case COLON -> Need.add(1, node.values().get(key).minBytes(), node.restAfter(seen | 1L << key, false));
            case KEY -> cheapestKeyFrom(key);
            default -> cheapestKeyFrom(0);
        };
    }

    /** The rest of the shortest object whose next member's key is spelled on from trie node {@code at}. */
    private int cheapestKeyFrom(int at) {
        int best = Need.DEAD;
        for (int w : node.keys().wordsBelow(at)) {
            if ((seen >>> w & 1) != 0) continue;
            int v = Need.add(node.keys().length(w) - node.keys().depth(at) + 1, node.values().get(w).minBytes(),
                    node.restAfter(seen | 1L << w, false));
            best = Math.min(best, v);
        }
        return best;
    }
}
