package dev.needlewb.converter.flax;

import static dev.needlewb.converter.pickle.PickleOp.*;

import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.pickle.PickleEmitter;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
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
    private final PickleEmitter emit;

    PickleWriter(OutputStream out) {
        this.out = out;
        this.emit = new PickleEmitter(out, 4);
    }

    /**
     * Writes a whole pickle ({@code PROTO 4} ... {@code STOP}) of a top-level dict; lists under
     * the keys {@code tupleKeys} are written as tuples.
     */
    void writePickle(Map<String, ?> root, Set<String> tupleKeys) throws IOException {
        emit.proto();
        out.write(EMPTY_DICT);
        emit.memoize();
        out.write(MARK);
        for (var e : root.entrySet()) {
            emit.writeString(e.getKey());
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
            case Integer i -> emit.writeLong(i);
            case Long l -> emit.writeLong(l);
            case BigInteger big -> emit.writeBigInteger(big);
            case Double d -> emit.writeDouble(d);
            case Float f -> emit.writeDouble(f);
            case String s -> emit.writeString(s);
            case byte[] bytes -> emit.writeBytes(bytes);
            case NpyArray a -> writeArray(a);
            case Map<?, ?> m -> writeDict(m, listsAsTuples);
            case List<?> l when listsAsTuples -> writeTuple(l, true);
            case List<?> l -> writeList(l);
            default -> throw new IllegalArgumentException("cannot pickle a " + v.getClass().getName());
        }
    }

    private void writeDict(Map<?, ?> m, boolean listsAsTuples) throws IOException {
        out.write(EMPTY_DICT);
        emit.memoize();
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
        emit.memoize();
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
        emit.global("numpy.core.multiarray", "_reconstruct");
        emit.global("numpy", "ndarray");
        emit.writeLong(0);
        out.write(TUPLE1);
        emit.writeBytes(new byte[] {'b'});
        out.write(TUPLE3);
        out.write(REDUCE);
        out.write(MARK);
        emit.writeLong(1);
        int[] shape = a.shape();
        List<Integer> dims = java.util.Arrays.stream(shape).boxed().toList();
        writeTuple(dims, true);
        dtype(a.descr());
        out.write(NEWFALSE);
        emit.writeBytes(a.data());
        out.write(TUPLE);
        out.write(BUILD);
    }

    private void dtype(String descr) throws IOException {
        String key = "dtype:" + descr;
        if (emit.fetch(key)) return;
        emit.global("numpy", "dtype");
        emit.writeString(descr.substring(1));
        out.write(NEWFALSE);
        out.write(NEWTRUE);
        out.write(TUPLE3);
        out.write(REDUCE);
        out.write(MARK);
        emit.writeLong(3);
        emit.writeString(descr.substring(0, 1));
        out.write(NONE);
        out.write(NONE);
        out.write(NONE);
        emit.writeLong(-1);
        emit.writeLong(-1);
        emit.writeLong(0);
        out.write(TUPLE);
        out.write(BUILD);
        emit.remember(key);
    }
}
