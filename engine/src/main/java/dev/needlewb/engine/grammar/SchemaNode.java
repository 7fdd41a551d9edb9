package dev.needlewb.engine.grammar;

import java.util.List;

/** A compiled JSON-schema value, as the byte automaton needs it. */
/** Containers compare by identity: frames hash them on every mask lookup, and one compiled node is one place in the grammar. */
sealed interface SchemaNode {
    /** Bytes of the shortest compact JSON value this node accepts. */
    int minBytes();

    record StringNode(StringRule rule) implements SchemaNode {
        public int minBytes() {
            return 1 + rule.need(0, 0);
        }
    }

    record NumberNode(NumberRule rule) implements SchemaNode {
        public int minBytes() {
            return rule.need("");
        }
    }

    /** enum, const, boolean and null: a fixed set of compact JSON spellings. */
    record LiteralNode(ByteTrie spellings) implements SchemaNode {
        public int minBytes() {
            return spellings.minRest(0);
        }
    }

    /** {@code maxItems} -1: unbounded. */
    record ArrayNode(SchemaNode items, int minItems, int maxItems) implements SchemaNode {
        @Override
        public boolean equals(Object o) {
            return this == o;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(this);
        }

        public int minBytes() {
            return 2 + minItems * items.minBytes() + Math.max(0, minItems - 1);
        }
    }

    /**
     * An object of declared keys only, in any order, each at most once, the required ones present.
     * {@code keys} spells each key as a quoted JSON string; word i's value is {@code values.get(i)}.
     */
    record ObjectNode(ByteTrie keys, List<SchemaNode> values, long required) implements SchemaNode {
        @Override
        public boolean equals(Object o) {
            return this == o;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(this);
        }

        static final int MAX_KEYS = 64;

        public int minBytes() {
            return 1 + restAfter(0L, true);
        }

        /** Bytes of one {@code "key":value} member at its shortest. */
        int memberBytes(int key) {
            return keys.length(key) + 1 + values.get(key).minBytes();
        }

        /** Shortest bytes to add the missing required keys and the closing brace, after members {@code seen}. */
        int restAfter(long seen, boolean first) {
            long missing = required & ~seen;
            int bytes = 1;
            boolean needComma = !first;
            for (int k = 0; k < keys.words(); k++) {
                if ((missing >>> k & 1) == 0) continue;
                bytes += memberBytes(k) + (needComma ? 1 : 0);
                needComma = true;
            }
            return bytes;
        }
    }

    /** The tool-call object {@code {"name":NAME,"arguments":{...}}}; {@code names} word i's arguments are {@code arguments.get(i)}. */
    record CallNode(ByteTrie names, List<ObjectNode> arguments) implements SchemaNode {
        @Override
        public boolean equals(Object o) {
            return this == o;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(this);
        }

        static final byte[] OPEN = "{\"name\":".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        static final byte[] MIDDLE = ",\"arguments\":".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

        public int minBytes() {
            return OPEN.length + nameRest(0);
        }

        /** From name-trie {@code node}: the rest of a name, the middle, that tool's shortest arguments and the brace. */
        int nameRest(int node) {
            int best = StringRule.DEAD;
            for (int w : names.wordsBelow(node)) best = Math.min(best, names.length(w) - names.depth(node) + tail(w));
            return best;
        }

        /** After tool {@code tool}'s name: the middle, its arguments and the closing brace. */
        int tail(int tool) {
            return MIDDLE.length + arguments.get(tool).minBytes() + 1;
        }
    }
}
