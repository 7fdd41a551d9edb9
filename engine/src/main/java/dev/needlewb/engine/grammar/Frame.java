package dev.needlewb.engine.grammar;

import java.util.ArrayList;
import java.util.List;

/**
 * One level of the byte automaton's state: immutable, compared by value (so masks can be cached
 * per state), linked to the container it sits in. {@link #step} only ever returns frames from
 * which a valid answer can still be completed: a dead end is refused at the byte that would enter it.
 */
sealed interface Frame permits Frame.Container, StringFrame, NumberFrame, LiteralFrame, UnionFrame {
    /** Symbols 0..255 are bytes; {@link Symbols#MARKER_BASE} + k is chat marker k. */
    Frame step(int symbol);

    /** Fewest symbols this frame still needs to finish, its open child's share not counted. */
    int need();

    Container parent();

    /** A frame that holds values: it resumes when its child value ends. */
    sealed interface Container extends Frame permits OuterFrame, CallFrame, ObjectFrame, ArrayFrame {
        Frame afterValue();
    }

    /** The fewest symbols that finish the whole answer from {@code top}. */
    static int totalNeed(Frame top) {
        int sum = 0;
        for (Frame f = top; f != null; f = f.parent()) sum = Need.add(sum, f.need());
        return sum;
    }

    /** The frame after the first symbol of a value of {@code node} inside {@code parent}, or null. */
    static Frame startValue(SchemaNode node, Container parent, int b) {
        return switch (node) {
            case SchemaNode.StringNode s -> b == '"' ? StringFrame.open(s.rule(), parent) : null;
            case SchemaNode.NumberNode n -> NumberFrame.open(n.rule(), parent, b);
            case SchemaNode.LiteralNode l -> LiteralFrame.open(l.spellings(), parent, b);
            case SchemaNode.ArrayNode a -> b == '[' ? new ArrayFrame(a, 0, ArrayFrame.FIRST, parent) : null;
            case SchemaNode.ObjectNode o -> b == '{' ? new ObjectFrame(o, 0L, ObjectFrame.FIRST, -1, parent) : null;
            case SchemaNode.CallNode c -> b == '{' ? new CallFrame(c, CallFrame.OPEN, 1, -1, parent) : null;
            case SchemaNode.UnionNode u -> {
                List<Frame> started = new ArrayList<>(u.options().size());
                for (SchemaNode option : u.options()) started.add(startValue(option, parent, b));
                yield UnionFrame.of(started);
            }
        };
    }
}
