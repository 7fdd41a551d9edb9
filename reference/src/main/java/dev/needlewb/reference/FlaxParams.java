package dev.needlewb.reference;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Shape-checked access to Flax parameters keyed by '/'-joined paths, whichever layout holds them
 * ({@link FlaxLeaves}). Whole arrays are widened once and kept; a layer of a stacked [layers, ...]
 * parameter is widened alone ({@link #layer}). Safe to call from several threads.
 */
public final class FlaxParams {
    private final FlaxLeaves leaves;
    private final Map<String, double[]> widened = new ConcurrentHashMap<>();

    FlaxParams(FlaxLeaves leaves) {
        this.leaves = leaves;
    }

    /** The parameters of a Flax tree given as '/'-joined paths (per-layer ones stacked on axis 0). */
    public static FlaxParams ofTree(Map<String, NpyArray> params) {
        return new FlaxParams(new StackedLeaves(params));
    }

    /** True if some key starts with {@code prefix + "/"}. */
    public boolean hasTree(String prefix) {
        return leaves.hasTree(prefix);
    }

    public int[] shape(String key) throws WorkbenchException {
        return present(key).clone();
    }

    /** The values of {@code key} widened to double, after checking its shape is exactly {@code shape}. */
    public double[] get(String key, int... shape) throws WorkbenchException {
        checked(key, shape);
        return widened.computeIfAbsent(key, leaves::widen);
    }

    /**
     * Slice {@code layer} of a stacked {@code [layers, ...]} parameter of shape {@code shape},
     * widened on its own: a layer's matrix is read once and the whole stack is never widened.
     */
    public double[] layer(String key, int layer, int... shape) throws WorkbenchException {
        checked(key, shape);
        return leaves.widenLayer(key, layer);
    }

    private void checked(String key, int[] shape) throws WorkbenchException {
        int[] actual = present(key);
        if (!Arrays.equals(actual, shape)) {
            throw new WorkbenchException(ErrorKind.SHAPE_MISMATCH, "parameter " + key + ": expected shape " + Arrays.toString(shape)
                    + ", got " + Arrays.toString(actual));
        }
        String descr = leaves.descr(key);
        if (!descr.equals("<f4") && !descr.equals("<f2") && !descr.equals("<f8")) {
            throw new WorkbenchException(ErrorKind.UNSUPPORTED_DTYPE, "parameter " + key + ": expected a float array, got dtype " + descr);
        }
    }

    private int[] present(String key) throws WorkbenchException {
        int[] shape = leaves.shape(key);
        if (shape == null) throw new WorkbenchException(ErrorKind.MISSING_KEY, "parameter " + key + " is missing");
        return shape;
    }
}
