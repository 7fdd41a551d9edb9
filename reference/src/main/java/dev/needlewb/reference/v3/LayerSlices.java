package dev.needlewb.reference.v3;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.reference.FlaxParams;
import dev.needlewb.reference.Matrix;

/** Slice {@code layer} of the stacked {@code [layers, ...]} parameters under one Flax prefix. */
record LayerSlices(FlaxParams p, String prefix, int layer, int layers) {
    /** The slice of {@code prefix/name}, whose per-layer shape must be {@code inner}. */
    double[] get(String name, int... inner) throws WorkbenchException {
        int[] shape = new int[inner.length + 1];
        shape[0] = layers;
        System.arraycopy(inner, 0, shape, 1, inner.length);
        return p.layer(prefix + "/" + name, layer, shape);
    }

    /** A Flax kernel slice [in, out] as a matrix. */
    Matrix matrix(String name, int in, int out) throws WorkbenchException {
        return new Matrix(get(name, in, out), in, out);
    }
}
