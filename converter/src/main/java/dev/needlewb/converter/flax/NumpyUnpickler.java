package dev.needlewb.converter.flax;

import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.pickle.AllowListUnpickler;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.razorvine.pickle.IObjectConstructor;
import net.razorvine.pickle.PickleException;

/**
 * The unpickler of numpy/needle pickles: every global resolved from our own table, which knows
 * only the numpy/needle allow-list and builds our own types. Run it only on bytes
 * {@link dev.needlewb.converter.pickle.PickleScanner} has accepted.
 *
 * <p>{@link #load} returns a tree of {@code Map} (insertion order), {@code List} (tuples and
 * lists), {@code String}, {@code Long}, {@code BigInteger}, {@code Double}, {@code Boolean},
 * {@code byte[]}, {@code null} and {@link NpyArray}; a pickled {@code TransformerConfig} becomes
 * the map of its fields.
 */
final class NumpyUnpickler extends AllowListUnpickler {
    /** Deeper nesting than this is refused (a checkpoint nests about 8 levels). */
    private static final int MAX_DEPTH = 100;

    private interface Buildable {
        void build(Object state);
    }

    /** {@code _reconstruct(ndarray, (0,), b'b')}: an empty array waiting for its BUILD state. */
    private static final class PendingArray implements Buildable {
        NpyArray array;

        @Override
        public void build(Object state) {
            if (array != null) throw new PickleException("array built twice");
            if (!(state instanceof Object[] s) || (s.length != 5 && s.length != 4)) {
                throw new PickleException("array state is not numpy's (version, shape, dtype, fortran, data)");
            }
            int o = s.length - 4;
            if (o == 1 && !(s[0] instanceof Integer v && v == 1)) throw new PickleException("unsupported array state version " + s[0]);
            if (!(s[o + 1] instanceof NumpyDtype dtype)) throw new PickleException("array dtype is not a numpy dtype");
            if (!(s[o + 2] instanceof Boolean fortran)) throw new PickleException("array order flag is not a bool");
            if (!(s[o + 3] instanceof byte[] raw)) {
                throw new PickleException("array data is not bytes (object arrays are not supported)");
            }
            array = NumpyArrays.toNpy(dtype, NumpyArrays.shape(s[o]), fortran, raw);
        }
    }

    /** {@code TransformerConfig.__new__} followed by a BUILD with its field dict. */
    private static final class PendingConfig implements Buildable {
        Map<?, ?> fields;

        @Override
        public void build(Object state) {
            if (fields != null) throw new PickleException("TransformerConfig built twice");
            if (!(state instanceof Map<?, ?> m)) throw new PickleException("TransformerConfig state is not a dict");
            fields = m;
        }
    }

    /** {@code numpy.ndarray} itself: only an argument of {@code _reconstruct}, never called. */
    private static final IObjectConstructor NDARRAY = args -> {
        throw new PickleException("numpy.ndarray called directly");
    };

    private static final Map<String, IObjectConstructor> CONSTRUCTORS = Map.ofEntries(
            Map.entry("numpy._core.multiarray._reconstruct", NumpyUnpickler::reconstruct),
            Map.entry("numpy.core.multiarray._reconstruct", NumpyUnpickler::reconstruct),
            Map.entry("numpy._core.numeric._frombuffer", NumpyUnpickler::frombuffer),
            Map.entry("numpy.core.numeric._frombuffer", NumpyUnpickler::frombuffer),
            Map.entry("numpy.dtype", NumpyUnpickler::dtype),
            Map.entry("numpy.ndarray", NDARRAY),
            Map.entry("numpy._core.multiarray.scalar", NumpyUnpickler::scalar),
            Map.entry("numpy.core.multiarray.scalar", NumpyUnpickler::scalar),
            Map.entry("collections.OrderedDict", NumpyUnpickler::orderedDict),
            Map.entry("needle.model.architecture.TransformerConfig", NumpyUnpickler::transformerConfig),
            Map.entry("_codecs.encode", NumpyUnpickler::latin1Bytes));

    /** The qualified names this unpickler resolves: the allow-list the scanner enforces. */
    static Set<String> allowedGlobals() {
        return CONSTRUCTORS.keySet();
    }

    private NumpyUnpickler(byte[] data) {
        super(data);
    }

    /** Unpickles {@code data}; a failure reports the offset of the opcode being executed. */
    static Object load(byte[] data) throws Failure {
        Object root = new NumpyUnpickler(data).loadAll();
        try {
            return finish(root, 0, new IdentityHashMap<>(), new IdentityHashMap<>());
        } catch (PickleException e) {
            throw new Failure(-1, e.getMessage());
        }
    }

    @Override
    protected Map<String, ?> globals() {
        return CONSTRUCTORS;
    }

    @Override
    protected void build(Object target, Object state) {
        switch (target) {
            case Buildable b -> b.build(state);
            case NumpyDtype dtype -> dtype.build(state);
            default -> throw new PickleException("BUILD on an object that takes no state");
        }
    }

    private static void arity(String what, Object[] args, int n) {
        if (args.length != n) throw new PickleException(what + " called with " + args.length + " arguments, expected " + n);
    }

    private static Object reconstruct(Object[] args) {
        arity("_reconstruct", args, 3);
        if (args[0] != NDARRAY) throw new PickleException("_reconstruct of something other than numpy.ndarray");
        return new PendingArray();
    }

    /**
     * {@code _frombuffer(buf, dtype, shape, order[, axis_order])}: order 'C' or 'F', or numpy 2's
     * 'K' with the axis order of a transposed view of a C-contiguous buffer.
     */
    private static Object frombuffer(Object[] args) {
        if (args.length != 4 && args.length != 5) throw new PickleException("_frombuffer called with " + args.length + " arguments");
        if (!(args[0] instanceof byte[] buf)) throw new PickleException("_frombuffer data is not bytes");
        if (!(args[1] instanceof NumpyDtype dtype)) throw new PickleException("_frombuffer dtype is not a numpy dtype");
        int[] shape = NumpyArrays.shape(args[2]);
        Object axes = args.length == 5 ? args[4] : null;
        if ("K".equals(args[3]) && axes != null) return NumpyArrays.fromMemory(dtype, shape, NumpyArrays.shape(axes), buf);
        if (axes != null || !("C".equals(args[3]) || "F".equals(args[3]))) {
            throw new PickleException("_frombuffer order " + args[3] + " with axis order " + axes + " is not supported");
        }
        return NumpyArrays.toNpy(dtype, shape, "F".equals(args[3]), buf);
    }

    private static Object dtype(Object[] args) {
        if (args.length < 1 || args.length > 3 || !(args[0] instanceof String code)) {
            throw new PickleException("numpy.dtype called without a type code");
        }
        return new NumpyDtype(code);
    }

    /** {@code scalar(dtype, bytes)}: a numpy scalar, returned as Long, Double or Boolean. */
    private static Object scalar(Object[] args) {
        arity("scalar", args, 2);
        if (!(args[0] instanceof NumpyDtype dtype)) throw new PickleException("scalar dtype is not a numpy dtype");
        if (!(args[1] instanceof byte[] raw)) throw new PickleException("scalar data is not bytes");
        NpyArray one = NumpyArrays.toNpy(dtype, new int[0], false, raw);
        ByteBuffer b = ByteBuffer.wrap(one.data()).order(ByteOrder.LITTLE_ENDIAN);
        return switch (one.descr()) {
            case "<f2" -> (double) Float.float16ToFloat(b.getShort());
            case "<f4" -> (double) b.getFloat();
            case "<f8" -> b.getDouble();
            case "|b1" -> raw[0] != 0;
            case "|i1" -> (long) raw[0];
            case "|u1" -> (long) (raw[0] & 0xFF);
            case "<i2" -> (long) b.getShort();
            case "<u2" -> (long) (b.getShort() & 0xFFFF);
            case "<i4" -> (long) b.getInt();
            case "<u4" -> b.getInt() & 0xFFFFFFFFL;
            case "<i8" -> b.getLong();
            case "<u8" -> new BigInteger(Long.toUnsignedString(b.getLong()));
            default -> throw new PickleException("unsupported scalar dtype " + one.descr());
        };
    }

    private static Object orderedDict(Object[] args) {
        arity("OrderedDict", args, 0);
        return new LinkedHashMap<>();
    }

    private static Object transformerConfig(Object[] args) {
        arity("TransformerConfig.__new__", args, 0);
        return new PendingConfig();
    }

    /** Protocol 2 writes bytes as {@code _codecs.encode(text, 'latin1')}; nothing else is accepted. */
    private static Object latin1Bytes(Object[] args) {
        arity("_codecs.encode", args, 2);
        if (!(args[0] instanceof String text) || !("latin1".equals(args[1]) || "latin-1".equals(args[1]))) {
            throw new PickleException("_codecs.encode is only accepted as encode(text, 'latin1')");
        }
        byte[] out = new byte[text.length()];
        for (int i = 0; i < out.length; i++) {
            char c = text.charAt(i);
            if (c > 0xFF) throw new PickleException("_codecs.encode text is not latin-1");
            out[i] = (byte) c;
        }
        return out;
    }

    /** Replaces pending objects by their results and tuples by lists; refuses cycles and deep nesting. */
    private static Object finish(Object v, int depth, IdentityHashMap<Object, Object> done, IdentityHashMap<Object, Boolean> open) {
        if (v == null || v instanceof String || v instanceof Boolean || v instanceof Double || v instanceof Long
                || v instanceof BigInteger || v instanceof NpyArray || v instanceof byte[]) {
            return v;
        }
        if (v instanceof Integer i) return i.longValue();
        if (done.containsKey(v)) return done.get(v);
        if (depth > MAX_DEPTH) throw new PickleException("nesting deeper than " + MAX_DEPTH + " levels");
        if (open.put(v, Boolean.TRUE) != null) throw new PickleException("recursive structure");
        Object result = switch (v) {
            case PendingArray a when a.array != null -> a.array;
            case PendingArray a -> throw new PickleException("array without BUILD state");
            case PendingConfig c when c.fields != null -> finish(c.fields, depth + 1, done, open);
            case PendingConfig c -> throw new PickleException("TransformerConfig without BUILD state");
            case Map<?, ?> m -> {
                Map<Object, Object> out = new LinkedHashMap<>();
                for (var e : m.entrySet()) out.put(finish(e.getKey(), depth + 1, done, open), finish(e.getValue(), depth + 1, done, open));
                yield Collections.unmodifiableMap(out);
            }
            case Object[] tuple -> listOf(Arrays.asList(tuple), depth, done, open);
            case List<?> list -> listOf(list, depth, done, open);
            default -> throw new PickleException("unexpected " + v.getClass().getSimpleName() + " in a checkpoint");
        };
        open.remove(v);
        done.put(v, result);
        return result;
    }

    private static List<Object> listOf(List<?> items, int depth, IdentityHashMap<Object, Object> done, IdentityHashMap<Object, Boolean> open) {
        List<Object> out = new ArrayList<>(items.size());
        for (Object item : items) out.add(finish(item, depth + 1, done, open));
        return Collections.unmodifiableList(out);
    }
}
