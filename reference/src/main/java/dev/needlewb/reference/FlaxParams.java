package dev.needlewb.reference;

import dev.needlewb.converter.WorkbenchException;
import dev.needlewb.converter.io.NpyArray;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Shape-checked access to a Flax parameter map keyed by '/'-joined paths. Widened arrays are kept
 * so that slicing a stacked [layers, ...] parameter layer by layer converts it once.
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
        NpyArray a = array(key);
        if (!Arrays.equals(a.shape(), shape)) {
            throw new WorkbenchException("parameter " + key + ": expected shape " + Arrays.toString(shape)
                    + ", got " + Arrays.toString(a.shape()));
        }
        if (!a.descr().equals("<f4") && !a.descr().equals("<f2") && !a.descr().equals("<f8")) {
            throw new WorkbenchException("parameter " + key + ": expected a float array, got dtype " + a.descr());
        }
        return widened.computeIfAbsent(key, k -> a.asDoubles());
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

    /** Row {@code index} of a stacked [n, ...] array given as a flat double[] of {@code n} equal rows. */
    static double[] slice(double[] stacked, int index, int n) {
        int len = stacked.length / n;
        return Arrays.copyOfRange(stacked, index * len, (index + 1) * len);
    }
}
