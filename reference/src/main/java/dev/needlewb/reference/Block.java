package dev.needlewb.reference;

import dev.needlewb.core.v2.Geometry;

/**
 * One transformer Block after its engram injection: pre-norm attention, post norm, sigmoid-gated
 * residual, then the pre-normed Hadamard MLP residual ({@code (d1*pad(z)) @ H}, silu(d2 * .) @ H,
 * d3 * ., cropped to d; no post norm, no gate).
 */
public final class Block {
    private Block() {}

    /** The Block output [count, d] for input {@code x} [count, d] at positions [pos, pos + count). */
    static double[] forward(double[] x, int count, int pos, BlockWeights w, Geometry g, KvCache cache, int layer,
                            Rope.Table rope, Mask mask, RunSettings s, String tap) {
        int d = g.dModel();
        double[] out = attentionResidual(x, count, pos, d, w.normIn(), w.postNorm(), w.attnGate(), s, tap,
                h -> Attention.forward(h, count, pos, w, g, cache, layer, rope, mask, s, tap));
        RowChunks.forEach(count, (from, to) -> mlp(out, from, to, w, d));
        return out;
    }

    /**
     * The attention half of a Block, both generations: {@code h = ZCN(x; norm_in)} (A8 in quant
     * mode, site {@code attn_in}), then {@code x + sigmoid(attn_gate) * ZCN(attention(h); post_norm)}.
     */
    public static double[] attentionResidual(double[] x, int count, int pos, int d, double[] normIn, double[] postNorm,
                                             double attnGate, RunSettings s, String tap,
                                             java.util.function.UnaryOperator<double[]> attention) {
        double[] h = Norms.zcnRows(x, count, d, normIn);
        if (s.quant()) ActQuant.apply(h, count, d, tap + "attn_in", pos, s.watch());
        double[] a = Norms.zcnRows(attention.apply(h), count, d, postNorm);
        double gate = Norms.sigmoid(attnGate);
        double[] out = new double[count * d];
        for (int i = 0; i < out.length; i++) out[i] = x[i] + gate * a[i];
        return out;
    }

    /** Adds the Hadamard MLP of rows [from, to) of {@code out} [count, d] to those rows. */
    private static void mlp(double[] out, int from, int to, BlockWeights w, int d) {
        int n = w.d1().length;
        double hadamardEntry = 1.0 / Math.sqrt(n);
        double[] z = new double[n];
        for (int i = from; i < to; i++) {
            java.util.Arrays.fill(z, 0.0);
            Norms.zcn(out, i * d, d, w.preHadaNorm(), 0, z, 0);
            for (int j = 0; j < n; j++) z[j] *= w.d1()[j];
            Hadamard.transform(z, 0, n, hadamardEntry);
            for (int j = 0; j < n; j++) z[j] = Norms.silu(w.d2()[j] * z[j]);
            Hadamard.transform(z, 0, n, hadamardEntry);
            for (int j = 0; j < d; j++) out[i * d + j] += w.d3()[j] * z[j];
        }
    }
}
