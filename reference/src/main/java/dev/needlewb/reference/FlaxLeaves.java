package dev.needlewb.reference;

/**
 * The leaves of a Flax parameter tree (kernels [in, out], per-layer parameters stacked on a
 * leading axis) as the reference reads them: widened to float64 whole or one layer at a time, from a
 * checkpoint's stacked arrays ({@link StackedLeaves}) or from per-layer tensors ({@link TensorLeaves}).
 */
interface FlaxLeaves {
    /** The leaf's Flax shape, or null if there is no such leaf. */
    int[] shape(String key);

    /** The leaf's npy dtype ({@code <f4}, ...); the leaf must exist. */
    String descr(String key);

    /** The whole leaf, widened. */
    double[] widen(String key);

    /** Slice {@code layer} of the leaf's leading axis, widened. */
    double[] widenLayer(String key, int layer);

    /** True if some leaf's key starts with {@code prefix + "/"}. */
    boolean hasTree(String prefix);
}
