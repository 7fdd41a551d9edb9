package dev.needlewb.reference;

import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.v2.Geometry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

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

    private final SplittableRandom random;
    private final Map<String, NpyArray> params = new LinkedHashMap<>();

    private SyntheticParams(long seed) {
        random = new SplittableRandom(seed);
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
        p.normal("stack/mhc_phi_pre", 0, 0.02, layers, n * d, n);
        p.normal("stack/mhc_phi_post", 0, 0.02, layers, n * d, n);
        p.normal("stack/mhc_phi_res", 0, 0.02, layers, n * d, n * n);
        p.normal("stack/mhc_b_pre", 0, 0.1, layers, n);
        p.normal("stack/mhc_b_post", 0, 0.1, layers, n);
        float[] bRes = p.values(0, 0.1, layers * n * n);
        for (int l = 0; l < layers; l++) for (int i = 0; i < n; i++) bRes[(l * n + i) * n + i] += 4;
        p.put("stack/mhc_b_res", bRes, layers, n, n);
        for (String a : new String[] {"stack/mhc_a_pre", "stack/mhc_a_post", "stack/mhc_a_res"}) p.normal(a, 0.01, 0.002, layers);
        p.normal("stack/final_norm/scale", 0, 0.1, d);
        int width = g.numEngramTables() * g.engramSubDim();
        for (int s = 0; s < g.numEngramSites(); s++) {
            String e = "engrams_" + s + "/";
            p.normal(e + "embedding", 0, 0.02, g.numEngramTables(), g.engramSlots(), g.engramSubDim());
            p.normal(e + "key_proj/kernel", 0, 0.02, width, d);
            p.normal(e + "value_proj/kernel", 0, 0.02, width, d);
            float[] taps = p.values(0, 0.1, g.engramConvTaps() * d);
            for (int c = 0; c < d; c++) taps[c] += 1;
            p.put(e + "taps", taps, g.engramConvTaps(), d);
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
        return p.params;
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

    private float[] values(double mean, double std, int count) {
        float[] v = new float[count];
        for (int i = 0; i < v.length; i++) v[i] = (float) (mean + std * random.nextGaussian());
        return v;
    }

    private void normal(String key, double mean, double std, int... shape) {
        put(key, values(mean, std, Math.toIntExact(NpyArray.elementCount(shape))), shape);
    }

    private void put(String key, float[] values, int... shape) {
        params.put(key, NpyArray.ofFloats(shape, values));
    }
}
