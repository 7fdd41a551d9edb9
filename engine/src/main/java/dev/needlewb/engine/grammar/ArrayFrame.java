package dev.needlewb.engine.grammar;

/** An array being written: {@code count} items so far (capped where more no longer matter). */
record ArrayFrame(SchemaNode.ArrayNode node, int count, int phase, Container parent) implements Frame.Container {
    static final int FIRST = 0, IN_VALUE = 1, AFTER_VALUE = 2, AFTER_COMMA = 3;

    @Override
    public Frame step(int b) {
        return switch (phase) {
            case FIRST -> b == ']' && node.minItems() == 0 ? parent.afterValue()
                    : node.maxItems() != 0 ? Frame.startValue(node.items(), at(IN_VALUE), b) : null;
            case AFTER_VALUE -> {
                if (b == ',' && (node.maxItems() < 0 || count < node.maxItems())) yield at(AFTER_COMMA);
                yield b == ']' && count >= node.minItems() ? parent.afterValue() : null;
            }
            case AFTER_COMMA -> Frame.startValue(node.items(), at(IN_VALUE), b);
            default -> null;
        };
    }

    private ArrayFrame at(int p) {
        return new ArrayFrame(node, count, p, parent);
    }

    @Override
    public Frame afterValue() {
        int cap = Math.max(node.minItems(), node.maxItems());
        return new ArrayFrame(node, count < cap ? count + 1 : cap, AFTER_VALUE, parent);
    }

    @Override
    public int need() {
        int commaAndItem = Need.add(node.items().minBytes(), 1);
        int missing = Math.max(0, node.minItems() - count);
        return switch (phase) {
            case FIRST -> node.minBytes() - 1;
            case AFTER_VALUE -> Need.add(Need.times(missing, commaAndItem), 1);
            case AFTER_COMMA -> Need.add(node.items().minBytes(), Need.times(Math.max(0, missing - 1), commaAndItem), 1);
            default -> Need.add(Need.times(Math.max(0, missing - 1), commaAndItem), 1);
        };
    }
}
