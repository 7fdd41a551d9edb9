package dev.needlewb.torch;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;

/** One layer's MLP over the pre_hada-normalised rows [T, d]: Needle 2's Walsh-Hadamard one or Needle 3's Kronecker one. */
interface TorchMlp {
    NDArray apply(NDArray x, NDManager m);

    /** {@code x} [T, d] zero-padded to [T, n]. */
    static NDArray padded(NDArray x, int n, NDManager m) {
        long t = x.getShape().get(0), d = x.getShape().get(1);
        return n > d ? x.concat(m.zeros(new Shape(t, n - d)), 1) : x;
    }

    static NDArray silu(NDArray x) {
        return x.mul(x.getNDArrayInternal().sigmoid());
    }
}
