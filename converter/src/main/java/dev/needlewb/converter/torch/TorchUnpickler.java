package dev.needlewb.converter.torch;

import dev.needlewb.converter.pickle.AllowListUnpickler;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import net.razorvine.pickle.IObjectConstructor;
import net.razorvine.pickle.PickleException;

/**
 * The unpickler of a torch {@code data.pkl}, every global resolved from our own table:
 * {@code OrderedDict} (a map; its BUILD state, the module {@code _metadata}, is dropped),
 * {@code _rebuild_tensor_v2} and {@code _rebuild_parameter} (a {@link TensorRef}), and the typed
 * storage classes (only as the type inside a storage persistent id). Run it only on bytes the
 * scanner has accepted with {@link TorchStateDict}'s rules.
 */
final class TorchUnpickler extends AllowListUnpickler {

    /** A tensor as the pickle describes it: a view of one storage. */
    record TensorRef(TorchStorageType type, String storageKey, long storageNumel, long offset, long[] size, long[] stride) {}

    /** {@code ('storage', torch.XStorage, key, location, numel)} after BINPERSID. */
    private record StorageRef(TorchStorageType type, String key, long numel) {}

    private static final IObjectConstructor ORDERED_DICT = args -> {
        arity("OrderedDict", args, 0);
        return new LinkedHashMap<>();
    };

    private static final Map<String, Object> GLOBALS = Stream.concat(
            Stream.of(
                    Map.entry("collections.OrderedDict", (Object) ORDERED_DICT),
                    Map.entry("torch._utils._rebuild_tensor_v2", (Object) (IObjectConstructor) TorchUnpickler::rebuildTensor),
                    Map.entry("torch._utils._rebuild_parameter", (Object) (IObjectConstructor) TorchUnpickler::rebuildParameter)),
            Stream.of(TorchStorageType.values()).map(t -> Map.entry(t.qualifiedName(), (Object) t)))
            .collect(Collectors.toUnmodifiableMap(Map.Entry::getKey, Map.Entry::getValue));

    /** The globals a torch state dict pickle may name. */
    static final Set<String> ALLOWED_GLOBALS = GLOBALS.keySet();

    private TorchUnpickler(byte[] data) {
        super(data);
    }

    /** The pickle's top-level value; a failure reports the offset of the opcode being executed. */
    static Object load(byte[] data) throws Failure {
        return new TorchUnpickler(data).loadAll();
    }

    @Override
    protected Map<String, ?> globals() {
        return GLOBALS;
    }

    /** Only an OrderedDict's attribute dict (torch's {@code _metadata}), which is dropped. */
    @Override
    protected void build(Object target, Object state) {
        if (!(target instanceof Map<?, ?>) || !(state instanceof Map<?, ?>)) {
            throw new PickleException("BUILD is only accepted as an OrderedDict's attribute dict");
        }
    }

    @Override
    protected Object persistentId(Object pid) {
        return storage(pid);
    }

    private static StorageRef storage(Object pid) {
        if (!(pid instanceof Object[] t) || t.length != 5 || !"storage".equals(t[0])) {
            throw new PickleException("persistent id is not ('storage', type, key, location, numel)");
        }
        if (!(t[1] instanceof TorchStorageType type)) throw new PickleException("storage type is not a torch storage class");
        if (!(t[2] instanceof String key) || !key.matches("[0-9A-Za-z_]{1,64}")) throw new PickleException("storage key is not a short name");
        if (!(t[3] instanceof String location) || !location.startsWith("cpu") && !location.startsWith("cuda")) {
            throw new PickleException("storage location " + t[3] + " is not cpu or cuda");
        }
        return new StorageRef(type, key, nonNegative(t[4], "storage numel"));
    }

    /** {@code _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, metadata])}. */
    private static Object rebuildTensor(Object[] args) {
        if (args.length != 6 && args.length != 7) throw new PickleException("_rebuild_tensor_v2 called with " + args.length + " arguments");
        if (!(args[0] instanceof StorageRef s)) throw new PickleException("_rebuild_tensor_v2 without a storage");
        long offset = nonNegative(args[1], "storage offset");
        long[] size = dims(args[2], "size");
        long[] stride = dims(args[3], "stride");
        if (size.length != stride.length) throw new PickleException("size has " + size.length + " dimensions, stride " + stride.length);
        if (!(args[4] instanceof Boolean)) throw new PickleException("requires_grad is not a bool");
        if (!(args[5] instanceof Map<?, ?> hooks) || !hooks.isEmpty()) throw new PickleException("tensor with backward hooks");
        return new TensorRef(s.type, s.key, s.numel, offset, size, stride);
    }

    /** {@code _rebuild_parameter(data, requires_grad, hooks)}: the parameter's tensor. */
    private static Object rebuildParameter(Object[] args) {
        arity("_rebuild_parameter", args, 3);
        if (!(args[0] instanceof TensorRef t)) throw new PickleException("_rebuild_parameter of something that is not a tensor");
        return t;
    }

    private static long[] dims(Object tuple, String what) {
        if (!(tuple instanceof Object[] t)) throw new PickleException(what + " is not a tuple");
        if (t.length > 64) throw new PickleException(what + " has " + t.length + " dimensions");
        long[] out = new long[t.length];
        for (int i = 0; i < t.length; i++) out[i] = nonNegative(t[i], what);
        return out;
    }

    private static long nonNegative(Object v, String what) {
        long n = switch (v) {
            case Integer i -> i;
            case Long l -> l;
            default -> throw new PickleException(what + " is not an integer");
        };
        if (n < 0) throw new PickleException(what + " is negative (" + n + ")");
        return n;
    }

    private static void arity(String what, Object[] args, int n) {
        if (args.length != n) throw new PickleException(what + " called with " + args.length + " arguments, expected " + n);
    }
}
