package dev.needlewb.converter.flax;

import static dev.needlewb.converter.flax.PickleOp.*;

import dev.needlewb.converter.io.NpyArray;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes a protocol-4 pickle of dicts, lists/tuples, strings, numbers, bytes and numpy arrays the
 * way numpy pickles them: {@code numpy.core.multiarray._reconstruct(numpy.ndarray, (0,), b'b')}
 * (the numpy 1.x name, which numpy 2 still resolves without a warning for old pickles, so both
 * numpy generations read the file; numpy 2 itself writes {@code numpy._core}) and a BUILD with {@code (1, shape, dtype, False, data)}, the dtype as {@code numpy.dtype(code,
 * False, True)} with a BUILD of {@code (3, order, None, None, None, -1, -1, 0)}. Globals and
 * dtypes are memoized and fetched again with BINGET, as the pickle module does. No frames (they
 * are optional in protocol 4).
 */
final class PickleWriter {
    private static final int BATCH = 1000;

    private final OutputStream out;
    private final Map<String, Long> memo = new HashMap<>();
    private long memoSize;

    PickleWriter(OutputStream out) {
        this.out = out;
    }

    /**
     * Writes a whole pickle ({@code PROTO 4} ... {@code STOP}) of a top-level dict; lists under
     * the keys {@code tupleKeys} are written as tuples.
     */
    void writePickle(Map<String, ?> root, Set<String> tupleKeys) throws IOException {
        out.write(PROTO);
        out.write(4);
        out.write(EMPTY_DICT);
        memoize();
        out.write(MARK);
        for (var e : root.entrySet()) {
            writeString(e.getKey());
            write(e.getValue(), tupleKeys.contains(e.getKey()));
        }
        out.write(SETITEMS);
        out.write(STOP);
    }

    /**
     * Writes one value. Lists become Python tuples when {@code listsAsTuples} (TransformerConfig
     * fields are tuples), Python lists otherwise.
     */
    void write(Object v, boolean listsAsTuples) throws IOException {
        switch (v) {
            case null -> out.write(NONE);
            case Boolean b -> out.write(b ? NEWTRUE : NEWFALSE);
            case Integer i -> writeLong(i);
            case Long l -> writeLong(l);
            case BigInteger big -> writeBigInteger(big);
            case Double d -> writeDouble(d);
            case Float f -> writeDouble(f);
            case String s -> writeString(s);
            case byte[] bytes -> writeBytes(bytes);
            case NpyArray a -> writeArray(a);
            case Map<?, ?> m -> writeDict(m, listsAsTuples);
            case List<?> l when listsAsTuples -> writeTuple(l, true);
            case List<?> l -> writeList(l);
            default -> throw new IllegalArgumentException("cannot pickle a " + v.getClass().getName());
        }
    }

    private void writeDict(Map<?, ?> m, boolean listsAsTuples) throws IOException {
        out.write(EMPTY_DICT);
        memoize();
        Iterator<? extends Map.Entry<?, ?>> it = m.entrySet().iterator();
        while (it.hasNext()) {
            out.write(MARK);
            for (int n = 0; n < BATCH && it.hasNext(); n++) {
                var e = it.next();
                write(e.getKey(), listsAsTuples);
                write(e.getValue(), listsAsTuples);
            }
            out.write(SETITEMS);
        }
    }

    private void writeList(List<?> l) throws IOException {
        out.write(EMPTY_LIST);
        memoize();
        for (int i = 0; i < l.size(); i += BATCH) {
            out.write(MARK);
            for (Object item : l.subList(i, Math.min(l.size(), i + BATCH))) write(item, false);
            out.write(APPENDS);
        }
    }

    private void writeTuple(List<?> l, boolean listsAsTuples) throws IOException {
        if (l.isEmpty()) {
            out.write(EMPTY_TUPLE);
            return;
        }
        if (l.size() > 3) out.write(MARK);
        for (Object item : l) write(item, listsAsTuples);
        out.write(l.size() > 3 ? TUPLE : TUPLE1 + l.size() - 1);
    }

    private void writeArray(NpyArray a) throws IOException {
        global("numpy.core.multiarray", "_reconstruct");
        global("numpy", "ndarray");
        writeLong(0);
        out.write(TUPLE1);
        writeBytes(new byte[] {'b'});
        out.write(TUPLE3);
        out.write(REDUCE);
        out.write(MARK);
        writeLong(1);
        int[] shape = a.shape();
        List<Integer> dims = java.util.Arrays.stream(shape).boxed().toList();
        writeTuple(dims, true);
        dtype(a.descr());
        out.write(NEWFALSE);
        writeBytes(a.data());
        out.write(TUPLE);
        out.write(BUILD);
    }

    private void dtype(String descr) throws IOException {
        String key = "dtype:" + descr;
        if (fetch(key)) return;
        global("numpy", "dtype");
        writeString(descr.substring(1));
        out.write(NEWFALSE);
        out.write(NEWTRUE);
        out.write(TUPLE3);
        out.write(REDUCE);
        out.write(MARK);
        writeLong(3);
        writeString(descr.substring(0, 1));
        out.write(NONE);
        out.write(NONE);
        out.write(NONE);
        writeLong(-1);
        writeLong(-1);
        writeLong(0);
        out.write(TUPLE);
        out.write(BUILD);
        remember(key);
    }

    private void global(String module, String name) throws IOException {
        String key = "global:" + module + "." + name;
        if (fetch(key)) return;
        writeString(module);
        writeString(name);
        out.write(STACK_GLOBAL);
        remember(key);
    }

    /** Pushes a memoized object again; false if it was not written yet. */
    private boolean fetch(String key) throws IOException {
        Long index = memo.get(key);
        if (index == null) return false;
        if (index < 256) {
            out.write(BINGET);
            out.write(index.intValue());
        } else {
            out.write(LONG_BINGET);
            writeLe(index, 4);
        }
        return true;
    }

    private void remember(String key) throws IOException {
        memo.put(key, memoSize);
        memoize();
    }

    private void memoize() throws IOException {
        out.write(MEMOIZE);
        memoSize++;
    }

    private void writeLong(long v) throws IOException {
        if (v >= 0 && v < 256) {
            out.write(BININT1);
            out.write((int) v);
        } else if (v >= 0 && v < 65536) {
            out.write(BININT2);
            writeLe(v, 2);
        } else if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
            out.write(BININT);
            writeLe(v, 4);
        } else {
            writeBigInteger(BigInteger.valueOf(v));
        }
    }

    /** LONG1: little-endian two's complement of the minimal length. */
    private void writeBigInteger(BigInteger v) throws IOException {
        byte[] be = v.toByteArray();
        if (be.length > 255) throw new IllegalArgumentException("integer too large to pickle: " + v);
        out.write(LONG1);
        out.write(be.length);
        for (int i = be.length - 1; i >= 0; i--) out.write(be[i]);
    }

    /** BINFLOAT is big-endian IEEE 754 double. */
    private void writeDouble(double d) throws IOException {
        out.write(BINFLOAT);
        long bits = Double.doubleToRawLongBits(d);
        for (int i = 7; i >= 0; i--) out.write((int) (bits >>> (8 * i)));
    }

    private void writeString(String s) throws IOException {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        if (utf8.length < 256) {
            out.write(SHORT_BINUNICODE);
            out.write(utf8.length);
        } else {
            out.write(BINUNICODE);
            writeLe(utf8.length, 4);
        }
        out.write(utf8);
    }

    private void writeBytes(byte[] b) throws IOException {
        if (b.length < 256) {
            out.write(SHORT_BINBYTES);
            out.write(b.length);
        } else {
            out.write(BINBYTES);
            writeLe(b.length, 4);
        }
        out.write(b);
    }

    private void writeLe(long v, int bytes) throws IOException {
        for (int i = 0; i < bytes; i++) out.write((int) (v >>> (8 * i)));
    }
}
