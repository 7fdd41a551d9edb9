package dev.needlewb.reference.v3;

import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.reference.Block;
import dev.needlewb.reference.Norms;
import dev.needlewb.reference.Rope;
import dev.needlewb.reference.RunSettings;
import dev.needlewb.reference.Taps;

/**
 * One Needle 3 Block after its engram injection ({@code Block.__call__}): norm_in, A8 in quant
 * mode, attention, post_attn_norm, the sigmoid-gated residual, then pre_hada_norm and the
 * Kronecker MLP residual.
 */
final class V3Block {
    private V3Block() {}

    /** The Block output [count, d] for input {@code x} [count, d] at positions [pos, pos + count). */
    static double[] forward(double[] x, int count, int pos, V3BlockWeights w, V3Config c, MlpPermutations perms,
                            V3Cache cache, int layer, Rope.Table rope, V3Mask mask, RunSettings s, String tap) {
        int d = c.dModel();
        double[] out = Block.attentionResidual(x, count, pos, d, w.normIn(), w.postNorm(), w.attnGate(), s, tap,
                h -> V3Attention.forward(h, count, pos, w, c, cache, layer, rope, mask, s, tap));

        double[] m = Norms.zcnRows(out, count, d, w.preHadaNorm());
        Taps taps = s.taps();
        if (taps.wants(tap, "mlp.in")) taps.record(tap + "mlp.in", m, count, d);
        boolean untied = c.hadaFactorMode() == V3Config.FactorMode.BLOCK_UNTIED;
        double[] mlp = KroneckerMlp.forward(m, count, d, w.mlp(), perms, c.hadaBlockA(), c.hadaBlockB(), untied, taps, tap);
        for (int i = 0; i < out.length; i++) out[i] += mlp[i];
        return out;
    }
}
