package dev.needlewb.reference;

import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.v2.Geometry;
import java.util.Map;

/**
 * A complete random Flax parameter map (float32) for any geometry, shaped like a real checkpoint
 * and scaled like upstream's initialisers plus noise so that no path is trivial: kernels and tables
 * N(0, 0.02), norms 0.1 N(0, 1), Hadamard diagonals around 1 (d3 around 0.02), conv taps around the
 * identity, mHC residual logits around 4 I. For benchmarks and structural tests, not for numbers.
 */
public final class SyntheticParams {
    /** Contrastive and confidence probe counts of upstream's heads. */
    public static final int CONTRASTIVE_PROBES = 4;
    public static final int CONFIDENCE_PROBES = 8;

    private final RandomTree tree;

    private SyntheticParams(long seed) {
        tree = new RandomTree(seed);
    }

    /**
     * Parameters for {@code g} with both probe heads ({@code contrastiveDim} outputs) and, when
     * {@code withMtp}, the MTP branch.
     */
    public static Map<String, NpyArray> flax(Geometry g, int contrastiveDim, boolean withMtp, long seed) {
        SyntheticParams p = new SyntheticParams(seed);
        int d = g.dModel();
        int layers = g.numLayers();
        int n = g.mhcLanes();
        p.normal("embedding/embedding", 0, 0.02, g.vocab(), d);
        p.block("stack/layers/block", g, layers);
        mhc(p.tree, layers, n, d);
        p.normal("stack/final_norm/scale", 0, 0.1, d);
        for (int s = 0; s < g.numEngramSites(); s++) {
            engramSite(p.tree, s, g.numEngramTables(), g.engramSlots(), g.engramSubDim(), d, g.engramConvTaps());
        }
        p.normal("contrastive_head/probes", 0, 0.02, CONTRASTIVE_PROBES, d);
        p.normal("contrastive_head/proj/kernel", 0, 0.02, CONTRASTIVE_PROBES * d, contrastiveDim);
        p.put("contrastive_head/log_temp", new float[] {(float) Math.log(0.07)});
        p.normal("confidence_head/probes", 0, 0.02, CONFIDENCE_PROBES, d);
        p.normal("confidence_head/proj/kernel", 0, 0.02, CONFIDENCE_PROBES * d, 1);
        p.normal("confidence_head/proj/bias", 0, 0.02, 1);
        if (withMtp) {
            p.normal("mtp_combine/kernel", 0, 0.02, 2 * d, d);
            p.block("mtp_block", g, 0);
            p.normal("mtp_emb_norm/scale", 0, 0.1, d);
            p.normal("mtp_final_norm/scale", 0, 0.1, d);
        }
        return p.tree.params();
    }

    /** The mHC parameters {@code stack/mhc_*} of {@code layers} layers of {@code n} lanes of width d. */
    public static void mhc(RandomTree t, int layers, int n, int d) {
        t.normal("stack/mhc_phi_pre", 0, 0.02, layers, n * d, n);
        t.normal("stack/mhc_phi_post", 0, 0.02, layers, n * d, n);
        t.normal("stack/mhc_phi_res", 0, 0.02, layers, n * d, n * n);
        t.normal("stack/mhc_b_pre", 0, 0.1, layers, n);
        t.normal("stack/mhc_b_post", 0, 0.1, layers, n);
        float[] bRes = t.values(0, 0.1, layers * n * n);
        for (int l = 0; l < layers; l++) for (int i = 0; i < n; i++) bRes[(l * n + i) * n + i] += 4;
        t.put("stack/mhc_b_res", bRes, layers, n, n);
        for (String a : new String[] {"stack/mhc_a_pre", "stack/mhc_a_post", "stack/mhc_a_res"}) t.normal(a, 0.01, 0.002, layers);
    }

    /** The parameters {@code engrams_<site>/*}: tables, key/value projections, conv taps [taps, d]. */
    public static void engramSite(RandomTree t, int site, int tables, int slots, int sub, int d, int taps) {
        String e = "engrams_" + site + "/";
        t.normal(e + "embedding", 0, 0.02, tables, slots, sub);
        t.normal(e + "key_proj/kernel", 0, 0.02, tables * sub, d);
        t.normal(e + "value_proj/kernel", 0, 0.02, tables * sub, d);
        t.put(e + "taps", identityTaps(t, 1, taps, d), taps, d);
    }

    /** {@code stack} conv tap sets [taps, width], tap 0 around 1 and the others around 0 (the identity init plus noise). */
    public static float[] identityTaps(RandomTree t, int stack, int taps, int width) {
        float[] v = t.values(0, 0.1, stack * taps * width);
        for (int s = 0; s < stack; s++) for (int c = 0; c < width; c++) v[s * taps * width + c] += 1;
        return v;
    }

    /** One Block's parameters under {@code prefix}, stacked {@code layers} deep (0: unstacked). */
    private void block(String prefix, Geometry g, int layers) {
        int d = g.dModel();
        int hada = Hadamard.paddedLength(d);
        String b = prefix + "/";
        normal(b + "ZCRMSNorm_0/scale", 0, 0.1, stacked(layers, d));
        normal(b + "self_attn/q_proj/kernel", 0, 0.02, stacked(layers, d, g.qDim()));
        normal(b + "self_attn/k_proj/kernel", 0, 0.02, stacked(layers, d, g.kvDim()));
        normal(b + "self_attn/v_proj/kernel", 0, 0.02, stacked(layers, d, g.kvDim()));
        normal(b + "self_attn/gate_proj/kernel", 0, 0.02, stacked(layers, d, g.qDim()));
        normal(b + "self_attn/out_proj/kernel", 0, 0.02, stacked(layers, g.qDim(), d));
        normal(b + "self_attn/q_norm/scale", 0, 0.1, stacked(layers, g.headDim()));
        normal(b + "self_attn/k_norm/scale", 0, 0.1, stacked(layers, g.headDim()));
        normal(b + "post_attn_norm/scale", 0, 0.1, stacked(layers, d));
        normal(b + "attn_gate", 0, 0.5, stacked(layers));
        normal(b + "pre_hada_norm/scale", 0, 0.1, stacked(layers, d));
        normal(b + "hadamard_mlp/d1", 1, 0.1, stacked(layers, hada));
        normal(b + "hadamard_mlp/d2", 1, 0.1, stacked(layers, hada));
        normal(b + "hadamard_mlp/d3", 0.02, 0.005, stacked(layers, hada));
    }

    private static int[] stacked(int layers, int... inner) {
        if (layers == 0) return inner;
        int[] s = new int[inner.length + 1];
        s[0] = layers;
        System.arraycopy(inner, 0, s, 1, inner.length);
        return s;
    }

    private void normal(String key, double mean, double std, int... shape) {
        tree.normal(key, mean, std, shape);
    }

    private void put(String key, float[] values, int... shape) {
        tree.put(key, values, shape);
    }
}
