package dev.needlewb.reference.v3;

import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.reference.FlaxParams;
import dev.needlewb.reference.Matrix;

/**
 * One layer's Block ({@code stack/layers/block}, slice {@code layer}): norm_in, the q/k/v/gate/out
 * kernels [in, out], the QKV conv taps [taps, channels] (null without conv), q_norm and k_norm
 * [qk], post_attn_norm, the attention gate, pre_hada_norm and the MLP.
 */
record V3BlockWeights(
        double[] normIn,
        Matrix q, Matrix k, Matrix v, Matrix gate, Matrix out,
        double[] qTaps, double[] kTaps, double[] vTaps,
        double[] qNorm, double[] kNorm,
        double[] postNorm,
        double attnGate,
        double[] preHadaNorm,
        V3MlpWeights mlp) {

    static V3BlockWeights read(FlaxParams p, V3Config c, int layer) throws WorkbenchException {
        LayerSlices s = new LayerSlices(p, "stack/layers/block", layer, c.numLayers());
        int d = c.dModel();
        int qWidth = c.numHeads() * c.qkDim();
        int kWidth = c.numKvHeads() * c.qkDim();
        int vWidth = c.numKvHeads() * c.vDim();
        int oWidth = c.numHeads() * c.vDim();
        int gateWidth = c.attentionGate() == V3Config.AttentionGate.HEADWISE ? c.numHeads() : oWidth;
        int taps = c.qkvConvTaps();
        return new V3BlockWeights(
                s.get("ZCRMSNorm_0/scale", d),
                s.matrix("self_attn/q_proj/kernel", d, qWidth),
                s.matrix("self_attn/k_proj/kernel", d, kWidth),
                s.matrix("self_attn/v_proj/kernel", d, vWidth),
                s.matrix("self_attn/gate_proj/kernel", d, gateWidth),
                s.matrix("self_attn/out_proj/kernel", oWidth, d),
                taps == 0 ? null : s.get("self_attn/q_taps", taps, qWidth),
                taps == 0 ? null : s.get("self_attn/k_taps", taps, kWidth),
                taps == 0 ? null : s.get("self_attn/v_taps", taps, vWidth),
                s.get("self_attn/q_norm/scale", c.qkDim()),
                s.get("self_attn/k_norm/scale", c.qkDim()),
                s.get("post_attn_norm/scale", d),
                s.get("attn_gate")[0],
                s.get("pre_hada_norm/scale", d),
                V3MlpWeights.read(s, c));
    }
}
