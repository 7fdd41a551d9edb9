package dev.needlewb.reference.v3;

import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.reference.Matrix;

/**
 * One layer's Kronecker MLP ({@code hadamard_mlp}): the diagonals d1, d2, b2, d3, d4 [n], the
 * three stages' factors as the Flax tree holds them (shared: a [ba, ba], b [bb, bb]; block_untied:
 * a [bb, ba, ba], b [ba, bb, bb]; never transposed), and the rank-8 conditioner cond_v [d, 8],
 * cond_u [8, n].
 */
record V3MlpWeights(
        double[] d1, double[] d2, double[] b2, double[] d3, double[] d4,
        double[][] factorA, double[][] factorB,
        Matrix condV, Matrix condU) {

    static final int STAGES = 3;

    static V3MlpWeights read(LayerSlices s, V3Config c) throws WorkbenchException {
        int n = c.hadaN();
        int ba = c.hadaBlockA();
        int bb = c.hadaBlockB();
        boolean untied = c.hadaFactorMode() == V3Config.FactorMode.BLOCK_UNTIED;
        double[][] a = new double[STAGES][];
        double[][] b = new double[STAGES][];
        for (int st = 0; st < STAGES; st++) {
            String w = "hadamard_mlp/w" + (st + 1);
            a[st] = untied ? s.get(w + "a", bb, ba, ba) : s.get(w + "a", ba, ba);
            b[st] = untied ? s.get(w + "b", ba, bb, bb) : s.get(w + "b", bb, bb);
        }
        int rank = V3Config.HADA_COND_RANK;
        return new V3MlpWeights(
                s.get("hadamard_mlp/d1", n), s.get("hadamard_mlp/d2", n), s.get("hadamard_mlp/b2", n),
                s.get("hadamard_mlp/d3", n), s.get("hadamard_mlp/d4", n), a, b,
                s.matrix("hadamard_mlp/cond_v", c.dModel(), rank), s.matrix("hadamard_mlp/cond_u", rank, n));
    }
}
