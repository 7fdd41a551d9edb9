package dev.needlewb.torch;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;

/**
 * Needle 2's MLP (SPEC section 3; reference {@code HadamardMlp}): {@code d3 (.) (H silu(d2 (.) H (d1 (.) pad(x))))[0:d]}
 * with H the normalised Walsh-Hadamard matrix of the padded length, shared by every layer.
 */
record HadamardMlp(NDArray hadamard, NDArray d1, NDArray d2, NDArray d3, int d) implements TorchMlp {
    @Override
    public NDArray apply(NDArray x, NDManager m) {
        NDArray z = TorchMlp.padded(x, (int) hadamard.getShape().get(0), m).mul(d1).matMul(hadamard);
        z = TorchMlp.silu(z.mul(d2)).matMul(hadamard);
        return z.get(new NDIndex(":, :{}", d)).mul(d3);
    }
}
