package dev.needlewb.engine.grammar;

import java.util.List;

/**
 * A compiled JSON-schema value, as the byte automaton needs it. Leaf nodes are records compared by
 * their rules (themselves compared by identity); nodes that hold other nodes are classes compared by
 * identity, so hashing a frame never walks a schema (a schema reached through {@code $ref} from many
 * places is one shared node, and hashing it by value would cost as much as the schema written out in full).
 */
sealed interface SchemaNode {
    /** Bytes of the shortest compact JSON value this node accepts (worked out once, when the node is made). */
    int minBytes();

    record StringNode(StringRule rule, int minBytes) implements SchemaNode {
        StringNode(StringRule rule) {
            this(rule, Need.add(1, rule.need(0, 0)));
        }
    }

    record NumberNode(NumberRule rule, int minBytes) implements SchemaNode {
        NumberNode(NumberRule rule) {
            this(rule, rule.need(""));
        }
    }

    /** enum, const, boolean and null: a fixed set of compact JSON spellings. */
    record LiteralNode(ByteTrie spellings, int minBytes) implements SchemaNode {
        LiteralNode(ByteTrie spellings) {
            this(spellings, spellings.minRest(0));
        }
    }

    /** {@code maxItems} -1: unbounded. */
    final class ArrayNode implements SchemaNode {
        private final SchemaNode items;
        private final int minItems, maxItems, minBytes;

        ArrayNode(SchemaNode items, int minItems, int maxItems) {
            this.items = items;
            this.minItems = minItems;
            this.maxItems = maxItems;
            // [ ] around minItems items and the commas between them
            this.minBytes = minItems == 0 ? 2 : Need.add(1, Need.times(minItems, Need.add(items.minBytes(), 1)));
        }

        SchemaNode items() { return items; }

        int minItems() { return minItems; }

        int maxItems() { return maxItems; }

        @Override
        public int minBytes() { return minBytes; }
    }

    /**
     * An object of declared keys only, in any order, each at most once, the required ones present.
     * {@code keys} spells each key as a quoted JSON string; word i's value is {@code values.get(i)}.
     */
    final class ObjectNode implements SchemaNode {
        static final int MAX_KEYS = 64;
        private final ByteTrie keys;
        private final List<SchemaNode> values;
        private final long required;
        private final int minBytes;

        ObjectNode(ByteTrie keys, List<SchemaNode> values, long required) {
            this.keys = keys;
            this.values = values;
            this.required = required;
            this.minBytes = Need.add(1, restAfter(keys, values, required, 0L, true));
        }

        ByteTrie keys() { return keys; }

        List<SchemaNode> values() { return values; }

        long required() { return required; }

        @Override
        public int minBytes() { return minBytes; }

        /** Shortest bytes to add the missing required keys and the closing brace, after members {@code seen}. */
        int restAfter(long seen, boolean first) {
            return restAfter(keys, values, required, seen, first);
        }

        private static int restAfter(ByteTrie keys, List<SchemaNode> values, long required, long seen, boolean first) {
            long missing = required & ~seen;
            int bytes = 1;
            boolean needComma = !first;
            for (int k = 0; k < keys.words(); k++) {
                if ((missing >>> k & 1) == 0) continue;
                bytes = Need.add(bytes, keys.length(k) + 1 + (needComma ? 1 : 0), values.get(k).minBytes());
                needComma = true;
            }
            return bytes;
        }
    }

    /**
     * A value of any of {@code options} ({@code anyOf}, a {@code oneOf} whose options no value satisfies
     * twice, a type list): the automaton follows every option still alive (see {@link UnionFrame}).
     */
    final class UnionNode implements SchemaNode {
        private final List<SchemaNode> options;
        private final int minBytes;

        UnionNode(List<SchemaNode> options) {
            this.options = options;
            this.minBytes = options.stream().mapToInt(SchemaNode::minBytes).min().orElse(Need.DEAD);
        }

        List<SchemaNode> options() { return options; }

        @Override
        public int minBytes() { return minBytes; }
    }

    /** The tool-call object {@code {"name":NAME,"arguments":{...}}}; {@code names} word i's arguments are {@code arguments.get(i)}. */
    final class CallNode implements SchemaNode {
        private final ByteTrie names;
        private final List<ObjectNode> arguments;
        private final int minBytes;

        CallNode(ByteTrie names, List<ObjectNode> arguments) {
            this.names = names;
            this.arguments = arguments;
            this.minBytes = Need.add(OPEN.length, nameRest(names, arguments, 0));
        }

        ByteTrie names() { return names; }

        List<ObjectNode> arguments() { return arguments; }

        @Override
        public int minBytes() { return minBytes; }

        static final byte[] OPEN = "{\"name\":".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        static final byte[] MIDDLE = ",\"arguments\":".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

        /** From name-trie {@code node}: the rest of a name, the middle, that tool's shortest arguments and the brace. */
        int nameRest(int node) {
            return nameRest(names, arguments, node);
        }

        private static int nameRest(ByteTrie names, List<ObjectNode> arguments, int node) {
            int best = Need.DEAD;
            for (int w : names.wordsBelow(node)) {
                best = Math.min(best, Need.add(names.length(w) - names.depth(node) + MIDDLE.length + 1, arguments.get(w).minBytes()));
            }
            return best;
        }
    }
}
