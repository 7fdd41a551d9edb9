package dev.needlewb.reference;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.v2.Geometry;

/** The weights of one transformer Block: attention with its norms, the gate, the Hadamard MLP. */
record BlockWeights(
        double[] normIn,
        Matrix q, Matrix k, Matrix v, Matrix gate, Matrix out,
        double[] qNorm, double[] kNorm,
        double[] postNorm,
        double attnGate,
        double[] preHadaNorm,
        double[] d1, double[] d2, double[] d3) {

    /** The Block under {@code prefix} (e.g. {@code stack/layers/block}), slice {@code layer} of {@code layers} stacked ones (layers 0: unstacked). */
    static BlockWeights read(FlaxParams p, String prefix, Geometry g, int layer, int layers) throws WorkbenchException {
        int d = g.dModel();
        int hd = g.headDim();
        int n = Hadamard.paddedLength(d);
        Reader r = new Reader(p, prefix, layer, layers);
        return new BlockWeights(
                r.vector("ZCRMSNorm_0/scale", d),
                r.matrix("self_attn/q_proj/kernel", d, g.qDim()),
                r.matrix("self_attn/k_proj/kernel", d, g.kvDim()),
                r.matrix("self_attn/v_proj/kernel", d, g.kvDim()),
                r.matrix("self_attn/gate_proj/kernel", d, g.qDim()),
                r.matrix("self_attn/out_proj/kernel", g.qDim(), d),
                r.vector("self_attn/q_norm/scale", hd),
                r.vector("self_attn/k_norm/scale", hd),
                r.vector("post_attn_norm/scale", d),
                r.vector("attn_gate")[0],
                r.vector("pre_hada_norm/scale", d),
                r.vector("hadamard_mlp/d1", n),
                r.vector("hadamard_mlp/d2", n),
                r.vector("hadamard_mlp/d3", n));
    }

    /** Reads slices of stacked parameters ({@code layers > 0}) or whole unstacked ones. */
    private record Reader(FlaxParams p, String prefix, int layer, int layers) {
        private int[] shape(int... inner) {
            if (layers == 0) return inner;
            int[] s = new int[inner.length + 1];
            s[0] = layers;
            System.arraycopy(inner, 0, s, 1, inner.length);
            return s;
        }

        double[] vector(String name, int... inner) throws WorkbenchException {
            String key = prefix + "/" + name;
            return layers == 0 ? p.get(key, inner) : p.layer(key, layer, shape(inner));
        }

        Matrix matrix(String name, int in, int out) throws WorkbenchException {
            return new Matrix(vector(name, in, out), in, out);
        }
    }
}
