package dev.needlewb.converter.pickle;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.razorvine.pickle.PickleException;
import net.razorvine.pickle.PickleUtils;
import net.razorvine.pickle.Unpickler;

/**
 * Razorvine's unpickler with every global looked up in the subclass's allow-list instead of razorvine's
 * registry (static, JVM-wide, and knowing many classes), BUILD handed to the subclass (no
 * reflection), dicts in insertion order, and the offset of the failing opcode kept for error
 * messages. Instance opcodes, text persistent ids, the extension registry and out-of-band buffers
 * are refused; binary persistent ids go to {@link #persistentId}, refused unless overridden. Run
 * it only on bytes {@link PickleScanner} has accepted.
 */
public abstract class AllowListUnpickler extends Unpickler {

    /** A load failure and the byte offset of the opcode it happened at (-1 if after the stream). */
    public static final class Failure extends Exception {
        public final long offset;

        public Failure(long offset, String message) {
            super(message);
            this.offset = offset;
        }
    }

    private final Positioned in;
    private int opcodeOffset;

    protected AllowListUnpickler(byte[] data) {
        this.in = new Positioned(data);
    }

    /** Unpickles the whole input; a failure reports the offset of the opcode being executed. */
    protected final Object loadAll() throws Failure {
        try {
            return load(in);
        } catch (IOException | RuntimeException e) {
            String m = e instanceof PickleException && e.getMessage() != null ? e.getMessage()
                    : "malformed pickle (" + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")";
            throw new Failure(opcodeOffset, m);
        }
    }

    /** The allowed globals by {@code module.name}, with the object each stands for. */
    protected abstract Map<String, ?> globals();

    /** Applies BUILD's {@code state} to {@code target} (the object below it on the stack). */
    protected abstract void build(Object target, Object state);

    /** The object a binary persistent id stands for; refused unless a subclass accepts them. */
    protected Object persistentId(Object pid) {
        throw new PickleException(String.format("opcode 0x%02x is not allowed", PickleOp.BINPERSID));
    }

    @Override
    protected Object dispatch(short key) throws PickleException, IOException {
        opcodeOffset = in.position() - 1;
        switch (key) {
            case PickleOp.GLOBAL -> {
                String module = PickleUtils.readline(input);
                String name = PickleUtils.readline(input);
                stack.add(checked(module, name));
            }
            case PickleOp.STACK_GLOBAL -> {
                Object name = stack.pop();
                Object module = stack.pop();
                if (!(module instanceof String m) || !(name instanceof String n)) throw new PickleException("STACK_GLOBAL operands are not strings");
                stack.add(checked(m, n));
            }
            case PickleOp.BUILD -> {
                Object state = stack.pop();
                build(stack.peek(), state);
            }
            case PickleOp.BINPERSID -> stack.add(persistentId(stack.pop()));
            case PickleOp.EMPTY_DICT -> stack.add(new LinkedHashMap<>());
            case PickleOp.DICT -> {
                Map<Object, Object> map = new LinkedHashMap<>();
                putPairs(map, stack.pop_all_since_marker());
                stack.add(map);
            }
            case PickleOp.SETITEMS -> {
                List<Object> items = stack.pop_all_since_marker();
                if (!(stack.peek() instanceof Map<?, ?> map)) throw new PickleException("SETITEMS on something that is not a dict");
                putPairs(cast(map), items);
            }
            case PickleOp.INST, PickleOp.OBJ, PickleOp.PERSID,
                    PickleOp.EXT1, PickleOp.EXT2, PickleOp.EXT4, PickleOp.NEXT_BUFFER, PickleOp.READONLY_BUFFER ->
                    throw new PickleException(String.format("opcode 0x%02x is not allowed", (int) key));
            default -> {
                return super.dispatch(key);
            }
        }
        return NO_RETURN_VALUE;
    }

    private Object checked(String module, String name) {
        Object resolved = name.indexOf('.') >= 0 ? null : globals().get(module + "." + name);
        if (resolved == null) throw new PickleException("pickle global " + module + "." + name + " is not allowed");
        return resolved;
    }

    @SuppressWarnings("unchecked")
    private static Map<Object, Object> cast(Map<?, ?> map) {
        return (Map<Object, Object>) map;
    }

    private static void putPairs(Map<Object, Object> map, List<Object> items) {
        if (items.size() % 2 != 0) throw new PickleException("odd number of items for a dict");
        for (int i = 0; i < items.size(); i += 2) map.put(items.get(i), items.get(i + 1));
    }

    /** The input with its read position visible, to report the offset of a failing opcode. */
    private static final class Positioned extends ByteArrayInputStream {
        Positioned(byte[] data) {
            super(data);
        }

        int position() {
            return pos;
        }
    }
}
