package dev.needlewb.torch;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;

/**
 * Flax parameters ('/'-joined names, kernels [in, out], layers stacked on axis 0) copied into
 * libtorch as float32, each checked before it is copied: present, the shape the geometry implies,
 * a float dtype. Every failure is one line naming the key.
 */
final class FlaxTensors {
    private static final Set<String> FLOAT_DTYPES = Set.of("<f2", "<f4", "<f8");

    private final Map<String, NpyArray> params;
    private final NDManager manager;

    FlaxTensors(Map<String, NpyArray> params, NDManager manager) {
        this.params = params;
        this.manager = manager;
    }

    /** {@code key} as a float32 tensor of exactly {@code shape}. */
    NDArray get(String key, long... shape) throws WorkbenchException {
        NpyArray a = checked(key, shape);
        return manager.create(a.asFloats(), new Shape(shape));
    }

    /** {@code key} of exactly {@code shape}, as a Java float array (for values used on the Java side). */
    float[] floats(String key, long... shape) throws WorkbenchException {
        return checked(key, shape).asFloats();
    }

    /** {@code key}'s shape, or null when it is absent (a variant the shapes tell apart). */
    long[] shape(String key) {
        NpyArray a = params.get(key);
        return a == null ? null : Arrays.stream(a.shape()).asLongStream().toArray();
    }

    private NpyArray checked(String key, long... shape) throws WorkbenchException {
        NpyArray a = params.get(key);
        if (a == null) throw new WorkbenchException(ErrorKind.MISSING_KEY, "parameter " + key + " is missing");
        long[] got = Arrays.stream(a.shape()).asLongStream().toArray();
        if (!Arrays.equals(got, shape)) {
            throw new WorkbenchException(ErrorKind.SHAPE_MISMATCH, "parameter " + key + ": expected shape " + Arrays.toString(shape) + ", got " + Arrays.toString(got));
        }
        if (!FLOAT_DTYPES.contains(a.descr())) {
            throw new WorkbenchException(ErrorKind.UNSUPPORTED_DTYPE, "parameter " + key + ": expected a float array, got dtype " + a.descr());
        }
        return a;
    }
}
