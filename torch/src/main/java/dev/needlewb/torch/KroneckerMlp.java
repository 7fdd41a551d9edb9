package dev.needlewb.torch;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;

/**
 * Needle 3's MLP (notes v3/forward.md 4.5; upstream {@code HadamardMLP}, architecture.py:711-760): the rank-8
 * conditioner {@code cond = 1 + softmax(x cond_v) cond_u}, then three Kronecker-factored stages with the file's
 * gathers p1 and p2 between them:
 * {@code z1 = F1(d1 (.) pad(x))[p1]}, {@code z2 = F2(silu(d2 (.) cond (.) z1 + b2))[p2]}, {@code out = (d4 (.) F3(d3 (.) z2))[0:d]}.
 * A stage views z as {@code Z [ba, bb]} and computes {@code a^T Z b} (shared factors a [ba, ba], b [bb, bb]), or with
 * block-untied factors (a [bb, ba, ba], b [ba, bb, bb]) one a per column of Z and one b per row of the result.
 */
record KroneckerMlp(NDArray d1, NDArray d2, NDArray b2, NDArray d3, NDArray d4, NDArray[] factorA, NDArray[] factorB,
                    NDArray condV, NDArray condU, long[] p1, long[] p2, int ba, int bb, int d, boolean untied) implements TorchMlp {
    @Override
    public NDArray apply(NDArray x, NDManager m) {
        NDArray cond = x.matMul(condV).softmax(1).matMul(condU).add(1f);
        NDArray z = gather(stage(TorchMlp.padded(x, ba * bb, m).mul(d1), 0), p1, m);
        z = gather(stage(TorchMlp.silu(z.mul(d2).mul(cond).add(b2)), 1), p2, m);
        z = stage(z.mul(d3), 2).mul(d4);
        return z.get(new NDIndex(":, :{}", d));
    }

    /** {@code z @ kron(a, b)} for the shared factors, the block-untied einsum otherwise; [T, n] to [T, n]. */
    private NDArray stage(NDArray z, int s) {
        long t = z.getShape().get(0);
        NDArray grid = z.reshape(t, ba, bb);
        if (!untied) return factorA[s].transpose().matMul(grid).matMul(factorB[s]).reshape(t, (long) ba * bb);
        // column j of Z through its own a[j]: [bb, T, ba] @ [bb, ba, ba]; then row k through its own b[k]
        NDArray columns = grid.transpose(2, 0, 1).matMul(factorA[s]);
        NDArray rows = columns.transpose(2, 1, 0).matMul(factorB[s]);
        return rows.transpose(1, 0, 2).reshape(t, (long) ba * bb);
    }

    /** {@code out[:, i] = z[:, p[i]]}. */
    private static NDArray gather(NDArray z, long[] p, NDManager m) {
        long t = z.getShape().get(0);
        return z.gather(m.create(p, new Shape(1, p.length)).broadcast(new Shape(t, p.length)), 1);
    }
}
