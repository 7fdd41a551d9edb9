package dev.needlewb.reference;

import dev.needlewb.converter.WorkbenchException;
import dev.needlewb.converter.io.NpyArray;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Shape-checked access to a Flax parameter map keyed by '/'-joined paths. Whole arrays are widened
 * once and kept; a layer of a stacked [layers, ...] parameter is widened alone ({@link #layer}).
 */
final class FlaxParams {
    private final Map<String, NpyArray> params;
    private final Map<String, double[]> widened = new HashMap<>();

    FlaxParams(Map<String, NpyArray> params) {
        this.params = params;
    }

    /** True if some key starts with {@code prefix + "/"}. */
    boolean hasTree(String prefix) {
        return params.keySet().stream().anyMatch(k -> k.startsWith(prefix + "/"));
    }

    int[] shape(String key) throws WorkbenchException {
        return array(key).shape().clone();
    }

    /** The values of {@code key} widened to double, after checking its shape is exactly {@code shape}. */
    double[] get(String key, int... shape) throws WorkbenchException {
        NpyArray a = checked(key, shape);
        return widened.computeIfAbsent(key, k -> a.asDoubles());
    }

    /**
     * Slice {@code layer} of a stacked {@code [layers, ...]} parameter of shape {@code shape},
     * widened on its own: a layer's matrix is read once and the whole stack is never widened.
     */
    double[] layer(String key, int layer, int... shape) throws WorkbenchException {
        NpyArray a = checked(key, shape);
        int len = a.size() / shape[0];
        return a.asDoubles(layer * len, len);
    }

    private NpyArray checked(String key, int[] shape) throws WorkbenchException {
        NpyArray a = array(key);
        if (!Arrays.equals(a.shape(), shape)) {
            throw new WorkbenchException("parameter " + key + ": expected shape " + Arrays.toString(shape)
                    + ", got " + Arrays.toString(a.shape()));
        }
        if (!a.descr().equals("<f4") && !a.descr().equals("<f2") && !a.descr().equals("<f8")) {
            throw new WorkbenchException("parameter " + key + ": expected a float array, got dtype " + a.descr());
        }
        return a;
    }

    /** A scalar parameter stored as shape () or (1,). */
    double scalar(String key) throws WorkbenchException {
        NpyArray a = array(key);
        if (a.size() != 1) {
            throw new WorkbenchException("parameter " + key + ": expected a scalar, got shape " + Arrays.toString(a.shape()));
        }
        return get(key, a.shape())[0];
    }

    private NpyArray array(String key) throws WorkbenchException {
        NpyArray a = params.get(key);
        if (a == null) throw new WorkbenchException("parameter " + key + " is missing");
        return a;
    }
}
