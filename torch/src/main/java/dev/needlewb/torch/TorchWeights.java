package dev.needlewb.torch;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.v2.Geometry;

/**
 * Every weight the forward reads, as float32 tensors under one manager (the reference's parameter
 * names and layouts: reference {@code ReferenceWeights}). Stacked per-layer parameters are sliced
 * into one tensor per layer at load.
 */
final class TorchWeights {
    record Layer(NDArray normIn, NDArray q, NDArray k, NDArray v, NDArray gate, NDArray out, NDArray qNorm, NDArray kNorm,
                 NDArray postNorm, float attnGate, NDArray preHadaNorm, NDArray d1, NDArray d2, NDArray d3,
                 NDArray phi, float aPre, float aPost, float aRes, NDArray bPre, NDArray bPost, NDArray bRes) {}

    record EngramSite(NDArray tables, NDArray key, NDArray value, NDArray taps) {}

    final NDArray embedding;
    final NDArray finalNorm;
    final Layer[] layers;
    final EngramSite[] engrams;
    final int hadamardLength;

    TorchWeights(FlaxTensors p, Geometry g, NDManager m) throws WorkbenchException {
        int d = g.dModel();
        int layers = g.numLayers();
        int n = g.mhcLanes();
        int hd = g.headDim();
        hadamardLength = d <= 1 ? 1 : Integer.highestOneBit(d - 1) << 1;
        embedding = p.get("embedding/embedding", g.vocab(), d);
        finalNorm = p.get("stack/final_norm/scale", d);
        String b = "stack/layers/block/";
        NDArray normIn = p.get(b + "ZCRMSNorm_0/scale", layers, d);
        NDArray q = p.get(b + "self_attn/q_proj/kernel", layers, d, g.qDim());
        NDArray k = p.get(b + "self_attn/k_proj/kernel", layers, d, g.kvDim());
        NDArray v = p.get(b + "self_attn/v_proj/kernel", layers, d, g.kvDim());
        NDArray gate = p.get(b + "self_attn/gate_proj/kernel", layers, d, g.qDim());
        NDArray out = p.get(b + "self_attn/out_proj/kernel", layers, g.qDim(), d);
        NDArray qNorm = p.get(b + "self_attn/q_norm/scale", layers, hd);
        NDArray kNorm = p.get(b + "self_attn/k_norm/scale", layers, hd);
        NDArray postNorm = p.get(b + "post_attn_norm/scale", layers, d);
        float[] attnGate = p.floats(b + "attn_gate", layers);
        NDArray preHada = p.get(b + "pre_hada_norm/scale", layers, d);
        NDArray d1 = p.get(b + "hadamard_mlp/d1", layers, hadamardLength);
        NDArray d2 = p.get(b + "hadamard_mlp/d2", layers, hadamardLength);
        NDArray d3 = p.get(b + "hadamard_mlp/d3", layers, hadamardLength);
        int rows = n * d;
        // phi_pre | phi_post | phi_res side by side: one projection gives all three coefficient sets
        NDArray phi = p.get("stack/mhc_phi_pre", layers, rows, n)
                .concat(p.get("stack/mhc_phi_post", layers, rows, n), 2)
                .concat(p.get("stack/mhc_phi_res", layers, rows, (long) n * n), 2);
        float[] aPre = p.floats("stack/mhc_a_pre", layers);
        float[] aPost = p.floats("stack/mhc_a_post", layers);
        float[] aRes = p.floats("stack/mhc_a_res", layers);
        NDArray bPre = p.get("stack/mhc_b_pre", layers, n);
        NDArray bPost = p.get("stack/mhc_b_post", layers, n);
        NDArray bRes = p.get("stack/mhc_b_res", layers, n, n);
        this.layers = new Layer[layers];
        for (int l = 0; l < layers; l++) {
            NDIndex at = new NDIndex(l);
            this.layers[l] = new Layer(normIn.get(at), q.get(at), k.get(at), v.get(at), gate.get(at), out.get(at), qNorm.get(at),
                    kNorm.get(at), postNorm.get(at), attnGate[l], preHada.get(at), d1.get(at), d2.get(at),
                    d3.get(at).get(new NDIndex(":{}", d)), phi.get(at), aPre[l], aPost[l], aRes[l], bPre.get(at), bPost.get(at),
                    bRes.get(at));
        }
        int width = g.numEngramTables() * g.engramSubDim();
        engrams = new EngramSite[g.numEngramSites()];
        for (int s = 0; s < engrams.length; s++) {
            String e = "engrams_" + s + "/";
            engrams[s] = new EngramSite(
                    p.get(e + "embedding", g.numEngramTables(), g.engramSlots(), g.engramSubDim())
                            .reshape((long) g.numEngramTables() * g.engramSlots(), g.engramSubDim()),
                    p.get(e + "key_proj/kernel", width, d),
                    p.get(e + "value_proj/kernel", width, d),
                    p.get(e + "taps", g.engramConvTaps(), d));
        }
    }
}
