package dev.needlewb.engine.grammar;

/**
 * One call {@code {"name":"TOOL","arguments":{...}}}: {@code at} is the position in the fixed
 * bytes (OPEN, MIDDLE) or the node in the name trie (NAME); {@code tool} the chosen name's index.
 */
record CallFrame(SchemaNode.CallNode node, int phase, int at, int tool, Container parent) implements Frame.Container {
    static final int OPEN = 0, NAME = 1, MIDDLE = 2, ARGUMENTS = 3, IN_ARGUMENTS = 4, CLOSE = 5;

    @Override
    public Frame step(int b) {
        switch (phase) {
            case OPEN -> {
                if (b != (SchemaNode.CallNode.OPEN[at] & 0xFF)) return null;
                return at + 1 == SchemaNode.CallNode.OPEN.length ? with(NAME, 0, -1) : with(OPEN, at + 1, -1);
            }
            case NAME -> {
                int child = b < 256 ? node.names().child(at, b) : -1;
                if (child < 0) return null;
                int word = node.names().wordAt(child);
                return word >= 0 ? with(MIDDLE, 0, word) : with(NAME, child, -1);
            }
            case MIDDLE -> {
                if (b != (SchemaNode.CallNode.MIDDLE[at] & 0xFF)) return null;
                return at + 1 == SchemaNode.CallNode.MIDDLE.length ? with(ARGUMENTS, 0, tool) : with(MIDDLE, at + 1, tool);
            }
            case ARGUMENTS -> {
                return Frame.startValue(node.arguments().get(tool), with(IN_ARGUMENTS, 0, tool), b);
            }
            case CLOSE -> {
                return b == '}' ? parent.afterValue() : null;
            }
            default -> {
                return null;
            }
        }
    }

    private CallFrame with(int p, int a, int t) {
        return new CallFrame(node, p, a, t, parent);
    }

    @Override
    public Frame afterValue() {
        return with(CLOSE, 0, tool);
    }

    @Override
    public int need() {
        return switch (phase) {
            case OPEN -> Need.add(SchemaNode.CallNode.OPEN.length - at, node.nameRest(0));
            case NAME -> node.nameRest(at);
            case MIDDLE -> Need.add(SchemaNode.CallNode.MIDDLE.length - at, node.arguments().get(tool).minBytes(), 1);
            case ARGUMENTS -> Need.add(node.arguments().get(tool).minBytes(), 1);
            default -> 1;
        };
    }
}
