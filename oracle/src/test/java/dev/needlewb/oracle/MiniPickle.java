package dev.needlewb.oracle;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Just enough of the pickle machine to read the golden Flax checkpoint in oracle tests (the opcodes
 * the golden README lists; numpy arrays come back as {@link Reduced} objects whose BUILD state
 * holds shape, dtype and raw bytes). Test-only: the oracle must not depend on the converter.
 */
final class MiniPickle {
    /** The result of REDUCE: a callable (module.name), its arguments, and the BUILD state if any. */
    static final class Reduced {
        final String callable;
        final Object[] args;
        Object state;

        Reduced(String callable, Object[] args) {
            this.callable = callable;
            this.args = args;
        }
    }

    private static final Object MARK = new Object();
    /** Placeholder for Python None (the deque refuses null). */
    private static final Object NONE = new Object();

    private MiniPickle() {}

    static Object load(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        Deque<Object> stack = new ArrayDeque<>();
        Map<Integer, Object> memo = new HashMap<>();
        while (true) {
            int op = in.get() & 0xFF;
            switch (op) {
                case 0x80 -> in.get(); // PROTO
                case 0x95 -> in.getLong(); // FRAME
                case '}' -> stack.push(new LinkedHashMap<Object, Object>());
                case 0x94 -> memo.put(memo.size(), stack.peek()); // MEMOIZE
                case '(' -> stack.push(MARK);
                case 0x8c -> stack.push(text(in, in.get() & 0xFF)); // SHORT_BINUNICODE
                case 'X' -> stack.push(text(in, in.getInt()));
                case 'K' -> stack.push(in.get() & 0xFF);
                case 'M' -> stack.push(in.getShort() & 0xFFFF);
                case 'J' -> stack.push(in.getInt());
                case 'G' -> stack.push(ByteBuffer.wrap(raw(in, 8)).getDouble()); // BINFLOAT is big-endian
                case 0x93 -> { // STACK_GLOBAL
                    Object name = stack.pop();
                    stack.push(stack.pop() + "." + name);
                }
                case ')' -> stack.push(new Object[0]);
                case 0x85 -> stack.push(new Object[] {stack.pop()});
                case 0x86 -> {
                    Object b = stack.pop();
                    stack.push(new Object[] {stack.pop(), b});
                }
                case 0x87 -> {
                    Object c = stack.pop(), b = stack.pop();
                    stack.push(new Object[] {stack.pop(), b, c});
                }
                case 't' -> stack.push(popToMark(stack).toArray());
                case 'C' -> stack.push(raw(in, in.get() & 0xFF));
                case 'B' -> stack.push(raw(in, in.getInt()));
                case 'R' -> {
                    Object[] args = (Object[]) stack.pop();
                    stack.push(new Reduced((String) stack.pop(), args));
                }
                case 'b' -> {
                    Object state = stack.pop();
                    ((Reduced) stack.peek()).state = state;
                }
                case 'h' -> stack.push(memo.get(in.get() & 0xFF));
                case 'j' -> stack.push(memo.get(in.getInt()));
                case 0x89 -> stack.push(Boolean.FALSE);
                case 0x88 -> stack.push(Boolean.TRUE);
                case 'N' -> stack.push(NONE);
                case 's' -> {
                    Object value = stack.pop(), key = stack.pop();
                    dict(stack.peek()).put(key, value);
                }
                case 'u' -> {
                    List<Object> items = popToMark(stack);
                    for (int i = 0; i < items.size(); i += 2) dict(stack.peek()).put(items.get(i), items.get(i + 1));
                }
                case '.' -> {
                    return stack.pop();
                }
                default -> fail("pickle opcode 0x" + Integer.toHexString(op) + " at " + (in.position() - 1)
                        + " is not one the golden checkpoint uses");
            }
        }
    }

    /** A float32 numpy array of a loaded checkpoint: its shape and values (C order). */
    static float[] floatArray(Object node, int... shape) {
        Reduced array = (Reduced) node;
        Object[] state = (Object[]) array.state;
        Object[] actualShape = (Object[]) state[1];
        Reduced dtype = (Reduced) state[2];
        if (!Arrays.equals(actualShape, Arrays.stream(shape).boxed().toArray()) || !"f4".equals(dtype.args[0])) {
            fail("expected a float32 array of shape " + Arrays.toString(shape) + ", got " + Arrays.toString(actualShape));
        }
        byte[] data = (byte[]) state[4];
        float[] out = new float[data.length / 4];
        ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
        return out;
    }

    @SuppressWarnings("unchecked")
    static Map<Object, Object> dict(Object o) {
        return (Map<Object, Object>) o;
    }

    private static List<Object> popToMark(Deque<Object> stack) {
        List<Object> items = new ArrayList<>();
        for (Object o = stack.pop(); o != MARK; o = stack.pop()) items.addFirst(o);
        return items;
    }

    private static String text(ByteBuffer in, int length) {
        return new String(raw(in, length), StandardCharsets.UTF_8);
    }

    private static byte[] raw(ByteBuffer in, int length) {
        byte[] b = new byte[length];
        in.get(b);
        return b;
    }
}
