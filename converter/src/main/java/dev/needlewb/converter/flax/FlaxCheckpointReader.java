package dev.needlewb.converter.flax;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.finite.NonFiniteCount;
import dev.needlewb.converter.finite.NonFinitePolicy;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.TreeMap;

/**
 * Reads an upstream Needle 2 Flax checkpoint pickle safely ({@link SafePickle}) and checks it against the
 * model its config describes: format_version 2, the keys {@code params} and {@code config},
 * array leaves of float32 or float16, every parameter of {@link FlaxParamShapes} present with its
 * shape, and no parameter the model would not read (unless extras are explicitly allowed).
 */
public final class FlaxCheckpointReader {
    private FlaxCheckpointReader() {}

    /** Reads a checkpoint of the model's parameters only, refusing non-finite values. */
    public static FlaxCheckpoint read(Path file) throws WorkbenchException {
        return read(file, false, NonFinitePolicy.REFUSE);
    }

    /**
     * @param allowExtraParams keep parameters the model does not read instead of refusing them
     * @param nonFinite whether a parameter holding NaN or infinity is refused, naming its path and first element
     */
    public static FlaxCheckpoint read(Path file, boolean allowExtraParams, NonFinitePolicy nonFinite) throws WorkbenchException {
        return checked(file, readStructure(file), allowExtraParams, nonFinite);
    }

    /** {@link #read} of a checkpoint whose structure {@link #readStructure} already read. */
    public static FlaxCheckpoint checked(Path file, FlaxCheckpoint structure, boolean allowExtraParams, NonFinitePolicy nonFinite)
            throws WorkbenchException {
        FlaxCheckpoint ckpt = checkedNeedle2(file, structure, allowExtraParams);
        if (nonFinite == NonFinitePolicy.REFUSE) refuseNonFinite(file, ckpt.params());
        return ckpt;
    }

    /** Refuses the first parameter holding NaN or infinity, naming its path and first element (any generation's tree). */
    public static void refuseNonFinite(Path file, Map<String, NpyArray> params) throws FormatException {
        for (var e : params.entrySet()) {
            NonFiniteCount bad = NonFiniteCount.of(e.getValue());
            if (bad.any()) throw param(ErrorKind.NON_FINITE, file, e.getKey(), "holds non-finite values: " + bad.describe(e.getValue().shape()) + "; " + NonFinitePolicy.OVERRIDE_HINT);
        }
    }

    static FlaxCheckpoint fromTree(Path file, Object tree, boolean allowExtraParams) throws WorkbenchException {
        return checkedNeedle2(file, structure(file, tree), allowExtraParams);
    }

    private static FlaxCheckpoint checkedNeedle2(Path file, FlaxCheckpoint checkpoint, boolean allowExtraParams) throws WorkbenchException {
        Generation generation = Generation.ofCheckpointConfig(checkpoint.config().keySet());
        if (generation != Generation.NEEDLE2) {
            throw error(ErrorKind.WRONG_GENERATION, file, "the config has qk_head_dim, which marks a " + generation + " checkpoint: " + generation
                    + " is not supported yet (this reader reads Needle 2's)");
        }
        check(file, checkpoint.params(), FlaxConfig.of(checkpoint.config()), allowExtraParams);
        return checkpoint;
    }

    /**
     * What every generation's checkpoint shares (upstream {@code run.load_checkpoint} up to the
     * config): format_version 2, a {@code config} dict, an optional int {@code step} and
     * {@code run} dict, and the {@code params} tree flattened to '/'-joined paths of float16 or
     * float32 arrays in tree order. The params are not checked against the config: that is the
     * generation's reader's job.
     */
    public static FlaxCheckpoint readStructure(Path file) throws WorkbenchException {
        return structure(file, SafePickle.load(file));
    }

    private static FlaxCheckpoint structure(Path file, Object tree) throws WorkbenchException {
        if (!(tree instanceof Map<?, ?> root)) throw error(ErrorKind.BAD_PICKLE, file, "the pickle holds a " + kind(tree) + ", not a checkpoint dict");
        Object version = root.get("format_version");
        if (!(version instanceof Long v) || v != FlaxCheckpoint.FORMAT_VERSION) {
            throw error(ErrorKind.UNSUPPORTED, file, "not a format-v" + FlaxCheckpoint.FORMAT_VERSION + " checkpoint (format_version="
                    + (version == null ? "missing" : version) + "); upstream's load_checkpoint refuses it too");
        }
        Map<String, Object> config = stringMap(file, "config", root.get("config"));
        Object step = root.get("step");
        if (step != null && !(step instanceof Long)) throw error(ErrorKind.BAD_PICKLE, file, "step is " + step + ", not an int");
        Object run = root.get("run");
        Map<String, Object> runMap = run == null ? Map.of() : stringMap(file, "run", run);

        Map<String, NpyArray> flat = new TreeMap<>(FlaxParamShapes.TREE_ORDER);
        flatten(file, "", requireDict(file, "params", root.get("params")), flat, new int[] {0});
        return new FlaxCheckpoint(FlaxCheckpoint.FORMAT_VERSION, new LinkedHashMap<>(flat), config, (Long) step, runMap);
    }

    /** Refuses missing, misshapen and (unless allowed) unknown parameters, naming the path. */
    static void check(Path file, Map<String, NpyArray> flat, FlaxConfig config, boolean allowExtraParams) throws FormatException {
        SequencedMap<String, int[]> expected = FlaxParamShapes.expected(config, FlaxParamShapes.Parts.presentIn(flat.keySet()));
        for (var e : expected.entrySet()) {
            NpyArray a = flat.get(e.getKey());
            if (a == null) throw param(ErrorKind.MISSING_KEY, file, e.getKey(), "missing (the config needs it with shape " + Arrays.toString(e.getValue()) + ")");
            if (!Arrays.equals(a.shape(), e.getValue())) {
                throw param(ErrorKind.SHAPE_MISMATCH, file, e.getKey(), "has shape " + Arrays.toString(a.shape()) + ", the config needs " + Arrays.toString(e.getValue()));
            }
        }
        if (!allowExtraParams) {
            for (String path : flat.keySet()) {
                if (!expected.containsKey(path)) throw param(ErrorKind.UNKNOWN_KEY, file, path, "is not a parameter the model reads (extra params need an explicit option)");
            }
        }
    }

    private static void flatten(Path file, String prefix, Map<?, ?> node, Map<String, NpyArray> out, int[] visits) throws FormatException {
        for (var e : node.entrySet()) {
            if (!(e.getKey() instanceof String key)) throw error(ErrorKind.BAD_PICKLE, file, "params" + (prefix.isEmpty() ? "" : " at " + prefix) + " has a non-string key " + e.getKey());
            if (key.isEmpty() || key.contains("/")) throw error(ErrorKind.BAD_PICKLE, file, "params" + (prefix.isEmpty() ? "" : " at " + prefix) + " has the key '" + key + "'");
            String path = prefix.isEmpty() ? key : prefix + "/" + key;
            // Shared sub-dicts (memo) could make the tree exponentially larger than the file.
            if (++visits[0] > 1_000_000) throw error(ErrorKind.TOO_LARGE, file, "params tree has more than a million nodes");
            switch (e.getValue()) {
                case NpyArray a when a.descr().equals("<f4") || a.descr().equals("<f2") -> out.put(path, a);
                case NpyArray a -> throw param(ErrorKind.UNSUPPORTED_DTYPE, file, path, "has dtype " + a.descr() + "; checkpoints hold float32 or float16");
                case Map<?, ?> child -> flatten(file, path, child, out, visits);
                case null, default -> throw param(ErrorKind.BAD_PICKLE, file, path, "is a " + kind(e.getValue()) + ", not an array");
            }
        }
    }

    private static Map<?, ?> requireDict(Path file, String key, Object v) throws FormatException {
        if (v == null) throw error(ErrorKind.MISSING_KEY, file, "checkpoint has no '" + key + "'");
        if (!(v instanceof Map<?, ?> m)) throw error(ErrorKind.BAD_PICKLE, file, "'" + key + "' is a " + kind(v) + ", not a dict");
        return m;
    }

    private static Map<String, Object> stringMap(Path file, String key, Object v) throws FormatException {
        Map<String, Object> out = new LinkedHashMap<>();
        for (var e : requireDict(file, key, v).entrySet()) {
            if (!(e.getKey() instanceof String k)) throw error(ErrorKind.BAD_PICKLE, file, "'" + key + "' has a non-string key " + e.getKey());
            out.put(k, e.getValue());
        }
        return out;
    }

    static String kind(Object v) {
        return switch (v) {
            case null -> "None";
            case Map<?, ?> _ -> "dict";
            case List<?> _ -> "tuple/list";
            case NpyArray a -> "array " + a.descr() + Arrays.toString(a.shape());
            default -> v.getClass().getSimpleName();
        };
    }

    private static FormatException error(ErrorKind kind, Path file, String problem) {
        return new FormatException(kind, file, FormatException.NO_OFFSET, problem);
    }

    private static FormatException param(ErrorKind kind, Path file, String path, String problem) {
        return new FormatException(kind, file, FormatException.NO_TENSOR, path, FormatException.NO_OFFSET, "param " + path + " " + problem);
    }
}
