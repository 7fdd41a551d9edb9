package dev.needlewb.reference.v3;

import dev.needlewb.converter.v3.V3ProbeHead;
import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.reference.RandomTree;
import dev.needlewb.reference.SyntheticParams;
import java.util.Map;
import java.util.Set;

/**
 * A complete random Needle 3 Flax parameter tree (float32) for any config, shaped like a real
 * checkpoint (checkpoint.md section 3) and scaled like upstream's initialisers plus noise so that
 * no path is trivial: kernels, tables and probes N(0, 0.02), norms 0.1 N(0, 1), conv taps around
 * the identity, Kronecker factors around the normalised Walsh matrix, MLP diagonals around 1 (d4
 * around 0.02), a non-zero conditioner, mHC residual logits around 4 I. For benchmarks and
 * structural tests, not for numbers.
 */
public final class SyntheticV3Params {
    private final RandomTree tree;

    private SyntheticV3Params(long seed) {
        tree = new RandomTree(seed);
    }

    /** Parameters for {@code c} with the given probe heads. */
    public static Map<String, NpyArray> flax(V3Config c, Set<V3ProbeHead> heads, long seed) {
        SyntheticV3Params p = new SyntheticV3Params(seed);
        int d = c.dModel();
        int layers = c.numLayers();
        int n = c.mhcLanes();
        p.normal("embedding/embedding", 0, 0.02, c.vocabSize(), d);
        p.block(c);
        SyntheticParams.mhc(p.tree, layers, n, d);
        p.normal("stack/final_norm/scale", 0, 0.1, d);
        for (int s = 0; s < c.engramLayers().size(); s++) {
            SyntheticParams.engramSite(p.tree, s, c.engram().tables(), c.engramSlots(), c.engram().subDim(), d, V3Config.ENGRAM_CONV_TAPS);
        }
        for (V3ProbeHead kind : heads) p.head(c, kind);
        return p.tree.params();
    }

    private void block(V3Config c) {
        int d = c.dModel();
        int layers = c.numLayers();
        int qWidth = c.numHeads() * c.qkDim();
        int kWidth = c.numKvHeads() * c.qkDim();
        int vWidth = c.numKvHeads() * c.vDim();
        int oWidth = c.numHeads() * c.vDim();
        int n = c.hadaN();
        String b = "stack/layers/block/";
        normal(b + "ZCRMSNorm_0/scale", 0, 0.1, layers, d);
        normal(b + "self_attn/q_proj/kernel", 0, 0.02, layers, d, qWidth);
        normal(b + "self_attn/k_proj/kernel", 0, 0.02, layers, d, kWidth);
        normal(b + "self_attn/v_proj/kernel", 0, 0.02, layers, d, vWidth);
        int gate = c.attentionGate() == V3Config.AttentionGate.HEADWISE ? c.numHeads() : oWidth;
        normal(b + "self_attn/gate_proj/kernel", 0, 0.02, layers, d, gate);
        normal(b + "self_attn/out_proj/kernel", 0, 0.02, layers, oWidth, d);
        if (c.qkvConvTaps() > 0) {
            int taps = c.qkvConvTaps();
            put(b + "self_attn/q_taps", SyntheticParams.identityTaps(tree, layers, taps, qWidth), layers, taps, qWidth);
            put(b + "self_attn/k_taps", SyntheticParams.identityTaps(tree, layers, taps, kWidth), layers, taps, kWidth);
            put(b + "self_attn/v_taps", SyntheticParams.identityTaps(tree, layers, taps, vWidth), layers, taps, vWidth);
        }
        normal(b + "self_attn/q_norm/scale", 0, 0.1, layers, c.qkDim());
        normal(b + "self_attn/k_norm/scale", 0, 0.1, layers, c.qkDim());
        normal(b + "post_attn_norm/scale", 0, 0.1, layers, d);
        normal(b + "attn_gate", 0, 0.5, layers);
        normal(b + "pre_hada_norm/scale", 0, 0.1, layers, d);
        String m = b + "hadamard_mlp/";
        int ba = c.hadaBlockA();
        int bb = c.hadaBlockB();
        boolean untied = c.hadaFactorMode() == V3Config.FactorMode.BLOCK_UNTIED;
        for (int s = 1; s <= 3; s++) {
            walsh(m + "w" + s + "a", layers * (untied ? bb : 1), ba, untied ? new int[] {layers, bb, ba, ba} : new int[] {layers, ba, ba});
            walsh(m + "w" + s + "b", layers * (untied ? ba : 1), bb, untied ? new int[] {layers, ba, bb, bb} : new int[] {layers, bb, bb});
        }
        normal(m + "d1", 1, 0.1, layers, n);
        normal(m + "d2", 1, 0.1, layers, n);
        normal(m + "b2", 0, 0.1, layers, n);
        normal(m + "d3", 1, 0.1, layers, n);
        normal(m + "d4", 0.02, 0.005, layers, n);
        normal(m + "cond_v", 0, 0.02, layers, d, V3Config.HADA_COND_RANK);
        normal(m + "cond_u", 0, 0.1, layers, V3Config.HADA_COND_RANK, n);
    }

    private void head(V3Config c, V3ProbeHead kind) {
        String h = kind.key() + "/";
        int rows = c.numLayers() + 1;
        int d = c.dModel();
        int k = kind.probes(c);
        int q = kind.queries(c);
        int out = kind.outputs(c);
        normal(h + "probes", 0, 0.02, rows, k, d);
        normal(h + "gain", 1, 0.1, rows, k);
        normal(h + "query", 0, 0.02, q, d);
        normal(h + "row_bias", 0, 0.1, q, rows, k);
        normal(h + "proj/kernel", 0, 0.02, q * d, out);
        if (kind.flaxBias()) normal(h + "proj/bias", 0, 0.02, out);
    }

    /** {@code count} matrices [size, size], each the normalised Walsh matrix plus 0.01 N(0, 1), stored as {@code shape}. */
    private void walsh(String key, int count, int size, int[] shape) {
        float[] v = tree.values(0, 0.01, count * size * size);
        double entry = 1 / Math.sqrt(size);
        for (int m = 0; m < count; m++)
            for (int i = 0; i < size; i++)
                for (int j = 0; j < size; j++) v[(m * size + i) * size + j] += (float) ((Integer.bitCount(i & j) % 2 == 0 ? entry : -entry));
        put(key, v, shape);
    }

    private void normal(String key, double mean, double std, int... shape) {
        tree.normal(key, mean, std, shape);
    }

    private void put(String key, float[] values, int... shape) {
        tree.put(key, values, shape);
    }
}
