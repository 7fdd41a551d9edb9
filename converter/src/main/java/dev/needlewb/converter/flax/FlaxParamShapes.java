package dev.needlewb.converter.flax;

import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SequencedMap;
import java.util.TreeMap;

/**
 * Every parameter upstream's {@code SimpleAttentionNetwork} reads, with its shape, for a config:
 * the layer stack (scanned, so stacked on a leading layer axis), the mHC mixing parameters, one
 * engram per site, the final norm and tied embedding, and optionally the two probe heads and the
 * multi-token-prediction branch. Kernels are Flax {@code [in, out]}.
 */
public final class FlaxParamShapes {
    /** Probes of upstream's {@code ContrastiveHead.PROBES} and {@code ConfidenceHead.PROBES}. */
    static final int CONTRASTIVE_PROBES = 4;
    static final int CONFIDENCE_PROBES = 8;

    /** Flax's order: keys sorted level by level (which differs from plain string order on '/'). */
    public static final Comparator<String> TREE_ORDER = (a, b) -> {
        String[] x = a.split("/", -1), y = b.split("/", -1);
        for (int i = 0; i < Math.min(x.length, y.length); i++) {
            int c = x[i].compareTo(y[i]);
            if (c != 0) return c;
        }
        return Integer.compare(x.length, y.length);
    };

    /** Which optional parts a checkpoint carries. */
    public record Parts(boolean contrastiveHead, boolean confidenceHead, boolean mtp) {
        public static final Parts ALL = new Parts(true, true, true);
        public static final Parts CORE = new Parts(false, false, false);

        /** The optional parts present among these param paths. */
        public static Parts presentIn(Iterable<String> paths) {
            boolean contrastive = false, confidence = false, mtp = false;
            for (String p : paths) {
                contrastive |= p.startsWith("contrastive_head/");
                confidence |= p.startsWith("confidence_head/");
                mtp |= p.startsWith("mtp_");
            }
            return new Parts(contrastive, confidence, mtp);
        }
    }

    private FlaxParamShapes() {}

    /**
     * Path ({@code /}-joined) to shape, in tree order. The widths are multiplied exactly:
     * {@link FlaxConfig} bounds them, so an overflow here is a bug, not input.
     */
    public static SequencedMap<String, int[]> expected(FlaxConfig c, Parts parts) {
        Map<String, int[]> m = new TreeMap<>(TREE_ORDER);
        int d = c.dModel(), layers = c.numLayers(), n = c.mhcLanes(), nc = Math.multiplyExact(n, d);
        m.put("embedding/embedding", shape(c.vocabSize(), d));
        block(m, "stack/layers/block/", new int[] {layers}, c);
        m.put("stack/final_norm/scale", shape(d));
        m.put("stack/mhc_phi_pre", shape(layers, nc, n));
        m.put("stack/mhc_phi_post", shape(layers, nc, n));
        m.put("stack/mhc_phi_res", shape(layers, nc, Math.multiplyExact(n, n)));
        m.put("stack/mhc_b_pre", shape(layers, n));
        m.put("stack/mhc_b_post", shape(layers, n));
        m.put("stack/mhc_b_res", shape(layers, n, n));
        m.put("stack/mhc_a_pre", shape(layers));
        m.put("stack/mhc_a_post", shape(layers));
        m.put("stack/mhc_a_res", shape(layers));
        int tables = c.engramTables(), sub = c.engramSubDim();
        for (int s = 0; s < c.engramLayers().length; s++) {
            String e = "engrams_" + s + "/";
            m.put(e + "embedding", shape(tables, c.engramSlots(), sub));
            m.put(e + "key_proj/kernel", shape(Math.multiplyExact(tables, sub), d));
            m.put(e + "value_proj/kernel", shape(Math.multiplyExact(tables, sub), d));
            m.put(e + "taps", shape(FlaxConfig.ENGRAM_CONV_TAPS, d));
        }
        if (parts.contrastiveHead()) {
            m.put("contrastive_head/probes", shape(CONTRASTIVE_PROBES, d));
            m.put("contrastive_head/proj/kernel", shape(Math.multiplyExact(CONTRASTIVE_PROBES, d), c.contrastiveDim()));
            m.put("contrastive_head/log_temp", shape());
        }
        if (parts.confidenceHead()) {
            m.put("confidence_head/probes", shape(CONFIDENCE_PROBES, d));
            m.put("confidence_head/proj/kernel", shape(Math.multiplyExact(CONFIDENCE_PROBES, d), 1));
            m.put("confidence_head/proj/bias", shape(1));
        }
        if (parts.mtp()) {
            m.put("mtp_combine/kernel", shape(Math.multiplyExact(2, d), d));
            block(m, "mtp_block/", new int[0], c);
            m.put("mtp_emb_norm/scale", shape(d));
            m.put("mtp_final_norm/scale", shape(d));
        }
        return new LinkedHashMap<>(m);
    }

    /** One {@code Block}'s parameters, each with the leading axes {@code lead} (the layer axis when scanned). */
    private static void block(Map<String, int[]> m, String prefix, int[] lead, FlaxConfig c) {
        int d = c.dModel(), attn = c.attnDim(), kv = c.kvDim(), hd = c.headDim(), h = c.hadaN();
        String a = prefix + "self_attn/";
        m.put(prefix + "ZCRMSNorm_0/scale", with(lead, d));
        m.put(a + "q_proj/kernel", with(lead, d, attn));
        m.put(a + "k_proj/kernel", with(lead, d, kv));
        m.put(a + "v_proj/kernel", with(lead, d, kv));
        m.put(a + "gate_proj/kernel", with(lead, d, attn));
        m.put(a + "out_proj/kernel", with(lead, attn, d));
        m.put(a + "q_norm/scale", with(lead, hd));
        m.put(a + "k_norm/scale", with(lead, hd));
        m.put(prefix + "post_attn_norm/scale", with(lead, d));
        m.put(prefix + "attn_gate", with(lead));
        m.put(prefix + "pre_hada_norm/scale", with(lead, d));
        m.put(prefix + "hadamard_mlp/d1", with(lead, h));
        m.put(prefix + "hadamard_mlp/d2", with(lead, h));
        m.put(prefix + "hadamard_mlp/d3", with(lead, h));
    }

    private static int[] shape(int... dims) {
        return dims;
    }

    private static int[] with(int[] lead, int... dims) {
        int[] out = Arrays.copyOf(lead, lead.length + dims.length);
        System.arraycopy(dims, 0, out, lead.length, dims.length);
        return out;
    }
}
