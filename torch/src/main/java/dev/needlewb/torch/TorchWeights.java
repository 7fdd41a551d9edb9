package dev.needlewb.torch;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.engine.torch.MlpPermutations;

/**
 * Every weight the forward reads, as float32 tensors under one manager (the reference's parameter
 * names and layouts: reference {@code ReferenceWeights}, {@code V3Weights}). Stacked per-layer
 * parameters are sliced into one tensor per layer at load; q, k and v side by side, so one GEMM
 * gives the raw q|k|v rows the Needle 3 conv runs over.
 */
final class TorchWeights {
    /** {@code taps} [conv taps, q|k|v width] or null without a conv; {@code headwiseGate}: gate [d, heads]. */
    record Layer(NDArray normIn, NDArray qkv, NDArray taps, NDArray gate, boolean headwiseGate, NDArray out, NDArray qNorm, NDArray kNorm,
                 NDArray postNorm, float attnGate, NDArray preHadaNorm, TorchMlp mlp,
                 NDArray phi, float aPre, float aPost, float aRes, NDArray bPre, NDArray bPost, NDArray bRes) {}

    record EngramSite(NDArray tables, NDArray key, NDArray value, NDArray taps) {}

    final NDArray embedding;
    /** The tied output rows: the embedding's first out_vocab rows. */
    final NDArray logitRows;
    final NDArray finalNorm;
    final Layer[] layers;
    final EngramSite[] engrams;

    TorchWeights(FlaxTensors p, TorchShape s, MlpPermutations permutations, NDManager m) throws WorkbenchException {
        int d = s.d();
        int layers = s.layers();
        int n = s.lanes();
        embedding = p.get("embedding/embedding", s.vocab(), d);
        logitRows = s.outVocab() == s.vocab() ? embedding : embedding.get(new NDIndex(":{}", s.outVocab()));
        finalNorm = p.get("stack/final_norm/scale", d);
        String b = "stack/layers/block/";
        NDArray normIn = p.get(b + "ZCRMSNorm_0/scale", layers, d);
        NDArray qkv = p.get(b + "self_attn/q_proj/kernel", layers, d, s.qWidth())
                .concat(p.get(b + "self_attn/k_proj/kernel", layers, d, s.kWidth()), 2)
                .concat(p.get(b + "self_attn/v_proj/kernel", layers, d, s.vWidth()), 2);
        NDArray taps = s.convTaps() == 0 ? null : p.get(b + "self_attn/q_taps", layers, s.convTaps(), s.qWidth())
                .concat(p.get(b + "self_attn/k_taps", layers, s.convTaps(), s.kWidth()), 2)
                .concat(p.get(b + "self_attn/v_taps", layers, s.convTaps(), s.vWidth()), 2);
        // Needle 3's headwise gate is gate_proj [d, heads], which no header field records (as V3StoredModel reads it)
        long[] gateShape = p.shape(b + "self_attn/gate_proj/kernel");
        boolean headwise = s.kronecker() && gateShape != null && gateShape.length == 3 && gateShape[2] == s.heads() && s.vDim() != 1;
        NDArray gate = p.get(b + "self_attn/gate_proj/kernel", layers, d, headwise ? s.heads() : s.attnWidth());
        NDArray out = p.get(b + "self_attn/out_proj/kernel", layers, s.attnWidth(), d);
        NDArray qNorm = p.get(b + "self_attn/q_norm/scale", layers, s.qkDim());
        NDArray kNorm = p.get(b + "self_attn/k_norm/scale", layers, s.qkDim());
        NDArray postNorm = p.get(b + "post_attn_norm/scale", layers, d);
        float[] attnGate = p.floats(b + "attn_gate", layers);
        NDArray preHada = p.get(b + "pre_hada_norm/scale", layers, d);
        TorchMlp[] mlps = s.kronecker() ? kroneckerMlps(p, s, permutations, b + "hadamard_mlp/", m) : hadamardMlps(p, s, b + "hadamard_mlp/", m);
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
            this.layers[l] = new Layer(normIn.get(at), qkv.get(at), taps == null ? null : taps.get(at), gate.get(at), headwise, out.get(at),
                    qNorm.get(at), kNorm.get(at), postNorm.get(at), attnGate[l], preHada.get(at), mlps[l], phi.get(at), aPre[l], aPost[l],
                    aRes[l], bPre.get(at), bPost.get(at), bRes.get(at));
        }
        TorchShape.Engram e = s.engram();
        engrams = new EngramSite[e.sites().length];
        for (int site = 0; site < engrams.length; site++) {
            String name = "engrams_" + site + "/";
            engrams[site] = new EngramSite(
                    p.get(name + "embedding", e.tables(), e.slots(), e.subDim()).reshape((long) e.tables() * e.slots(), e.subDim()),
                    p.get(name + "key_proj/kernel", e.width(), d),
                    p.get(name + "value_proj/kernel", e.width(), d),
                    p.get(name + "taps", e.convTaps(), d));
        }
    }

    private static TorchMlp[] hadamardMlps(FlaxTensors p, TorchShape s, String prefix, NDManager m) throws WorkbenchException {
        int n = s.mlpLength(), d = s.d();
        NDArray hadamard = hadamardMatrix(m, n);
        NDArray d1 = p.get(prefix + "d1", s.layers(), n), d2 = p.get(prefix + "d2", s.layers(), n), d3 = p.get(prefix + "d3", s.layers(), n);
        TorchMlp[] out = new TorchMlp[s.layers()];
        for (int l = 0; l < out.length; l++) {
            NDIndex at = new NDIndex(l);
            out[l] = new HadamardMlp(hadamard, d1.get(at), d2.get(at), d3.get(at).get(new NDIndex(":{}", d)), d);
        }
        return out;
    }

    private static TorchMlp[] kroneckerMlps(FlaxTensors p, TorchShape s, MlpPermutations permutations, String prefix, NDManager m)
            throws WorkbenchException {
        int n = s.mlpLength(), layers = s.layers();
        if (permutations == null || permutations.p1().length != n || permutations.p2().length != n) {
            throw new WorkbenchException(ErrorKind.SHAPE_MISMATCH, "the Kronecker MLP of length " + n + " needs hada_p1 and hada_p2 of "
                    + n + " entries" + (permutations == null ? "; none were given" : ", got " + permutations.p1().length + "/" + permutations.p2().length));
        }
        // upstream _hada_blocks: ba = 2^floor(bit_length(n - 1) / 2), bb = n / ba
        int ba = 1 << ((32 - Integer.numberOfLeadingZeros(n - 1)) / 2), bb = n / ba;
        long[] w1a = p.shape(prefix + "w1a");
        boolean untied = w1a != null && w1a.length == 4;
        NDArray[] a = new NDArray[3], b = new NDArray[3];
        for (int st = 0; st < 3; st++) {
            String w = prefix + "w" + (st + 1);
            a[st] = untied ? p.get(w + "a", layers, bb, ba, ba) : p.get(w + "a", layers, ba, ba);
            b[st] = untied ? p.get(w + "b", layers, ba, bb, bb) : p.get(w + "b", layers, bb, bb);
        }
        NDArray d1 = p.get(prefix + "d1", layers, n), d2 = p.get(prefix + "d2", layers, n), b2 = p.get(prefix + "b2", layers, n);
        NDArray d3 = p.get(prefix + "d3", layers, n), d4 = p.get(prefix + "d4", layers, n);
        NDArray condV = p.get(prefix + "cond_v", layers, s.d(), CONDITIONER_RANK), condU = p.get(prefix + "cond_u", layers, CONDITIONER_RANK, n);
        long[] p1 = toLongs(permutations.p1()), p2 = toLongs(permutations.p2());
        TorchMlp[] out = new TorchMlp[layers];
        for (int l = 0; l < layers; l++) {
            NDIndex at = new NDIndex(l);
            out[l] = new KroneckerMlp(d1.get(at), d2.get(at), b2.get(at), d3.get(at), d4.get(at),
                    new NDArray[] {a[0].get(at), a[1].get(at), a[2].get(at)}, new NDArray[] {b[0].get(at), b[1].get(at), b[2].get(at)},
                    condV.get(at), condU.get(at), p1, p2, ba, bb, s.d(), untied);
        }
        return out;
    }

    /** Upstream's HADA_COND_RANK: the conditioner's cond_v [d, 8], cond_u [8, n]. */
    private static final int CONDITIONER_RANK = 8;

    /** The Sylvester Walsh-Hadamard matrix of order {@code n} times {@code 1/sqrt(n)}. */
    private static NDArray hadamardMatrix(NDManager m, int n) {
        float[] h = new float[n * n];
        float scale = (float) (1 / Math.sqrt(n));
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) h[i * n + j] = Integer.bitCount(i & j) % 2 == 0 ? scale : -scale;
        return m.create(h, new Shape(n, n));
    }

    private static long[] toLongs(int[] values) {
        long[] out = new long[values.length];
        for (int i = 0; i < values.length; i++) out[i] = values[i];
        return out;
    }
}
