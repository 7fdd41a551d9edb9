package dev.needlewb.engine.grammar;

/**
 * The answer around the call list, as upstream's template has it:
 * {@code [<think>free text</think>[\n]]<tool_call>[...]</tool_call>[<|im_end|>]}; the thinking is
 * any bytes (unconstrained), the markers are single symbols.
 */
record OuterFrame(SchemaNode.ArrayNode calls, int phase) implements Frame.Container {
    static final int START = 0, THINK = 1, AFTER_THINK = 2, AFTER_NEWLINE = 3, CALLS = 4, IN_CALLS = 5,
            AFTER_CALLS = 6, COMPLETE = 7, DONE = 8;

    @Override
    public Frame step(int s) {
        return switch (phase) {
            case START -> s == Symbols.THINK_START ? at(THINK) : s == Symbols.TOOL_CALL_START ? at(CALLS) : null;
            case THINK -> s < Symbols.MARKER_BASE ? this : s == Symbols.THINK_END ? at(AFTER_THINK) : null;
            case AFTER_THINK -> s == '\n' ? at(AFTER_NEWLINE) : s == Symbols.TOOL_CALL_START ? at(CALLS) : null;
            case AFTER_NEWLINE -> s == Symbols.TOOL_CALL_START ? at(CALLS) : null;
            case CALLS -> Frame.startValue(calls, at(IN_CALLS), s);
            case AFTER_CALLS -> s == Symbols.TOOL_CALL_END ? at(COMPLETE) : null;
            case COMPLETE -> s == Symbols.IM_END ? at(DONE) : null;
            default -> null;
        };
    }

    private OuterFrame at(int p) {
        return new OuterFrame(calls, p);
    }

    @Override
    public Frame afterValue() {
        return at(AFTER_CALLS);
    }

    /** Whether the call list is closed: end of sequence may follow. */
    boolean complete() {
        return phase == COMPLETE || phase == DONE;
    }

    @Override
    public int need() {
        int list = Need.add(calls.minBytes(), 1);
        return switch (phase) {
            case START, AFTER_THINK, AFTER_NEWLINE -> Need.add(1, list);
            case THINK -> Need.add(2, list);
            case CALLS -> list;
            case IN_CALLS, AFTER_CALLS -> 1;
            default -> 0;
        };
    }

    @Override
    public Container parent() {
        return null;
    }
}
