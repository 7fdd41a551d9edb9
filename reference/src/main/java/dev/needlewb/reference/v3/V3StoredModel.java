package dev.needlewb.reference.v3;

import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.converter.flax.FlaxTree;
import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.converter.names.NameRow;
import dev.needlewb.converter.v3.V3ProbeHead;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.v3.V3Geometry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * A Needle 3 model from weights in the {@code .cact} layout (a dequantized file, a state dict read
 * against its name map): the config is the header's geometry plus what only the tensor shapes show
 * (a headwise gate is {@code gate_proj [H, d]}, block-untied factors are 3-d {@code w1a}, a probe
 * head's k, q and embedding width are its gain, query and proj shapes), the Flax tree is the weights
 * mapped back ({@link FlaxTree}), and the MLP permutations are the file's {@code hada_p1/p2}.
 */
public final class V3StoredModel {
    private V3StoredModel() {}

    public static V3Model load(ModelWeights w) throws WorkbenchException {
        V3Geometry g = V3Geometry.of(w.names().geometry());
        V3Config config = V3Config.fromSaved(config(g, w));
        int n = g.hadaN();
        return V3Model.load(FlaxTree.of(w), config,
                MlpPermutations.checked(permutation(w, "hada_p1"), permutation(w, "hada_p2"), n));
    }

    /** The config dict {@code TransformerConfig.from_saved} would read for this file's model. */
    static Map<String, Object> config(V3Geometry g, ModelWeights w) {
        Map<String, Object> c = new HashMap<>();
        c.put("vocab_size", (long) g.vocab());
        c.put("out_vocab", (long) g.outVocabField());
        c.put("d_model", (long) g.dModel());
        c.put("num_heads", (long) g.numHeads());
        c.put("num_kv_heads", (long) g.numKvHeads());
        c.put("num_layers", (long) g.numLayers());
        c.put("qk_head_dim", (long) g.qkHeadDim());
        c.put("v_head_dim", (long) g.vHeadDim());
        c.put("max_seq_len", (long) g.maxSeqLen());
        c.put("mhc_lanes", (long) g.mhcLanes());
        c.put("sliding_window", (long) g.slidingWindow());
        c.put("global_layers", longs(g.globalLayers()));
        c.put("qkv_conv_taps", (long) g.qkvConvTaps());
        c.put("engram_slots", (long) g.engramSlots());
        c.put("engram_orders", longs(g.engramOrders()));
        c.put("engram_layers", longs(g.engramSites()));
        c.put("engram_seed_heads", (long) g.engramSeedHeads());
        int orders = g.engramOrders().length;
        if (orders > 0) c.put("engram_heads", (long) (g.numEngramTables() / orders));
        c.put("rope_theta", (double) g.ropeTheta());
        c.put("kv_bits", (long) g.kvBits());
        int[] gate = shape(w, "layer00.gate_proj");
        if (gate != null && gate[0] == g.numHeads() && g.vHeadDim() != 1) c.put("attention_gate", "headwise");
        int[] w1a = shape(w, "layer00.w1a");
        if (w1a != null && w1a.length == 3) c.put("hada_factor_mode", "block_untied");
        for (V3ProbeHead head : V3ProbeHead.values()) {
            String name = head.key().substring(0, head.key().length() - "_head".length());
            int[] gain = shape(w, head.key() + ".gain"), query = shape(w, head.key() + ".query"), proj = shape(w, head.key() + ".proj");
            if (gain == null || query == null || proj == null) continue;
            c.put(name + "_probes", (long) gain[1]);
            c.put(name + "_queries", (long) query[0]);
            if (head == V3ProbeHead.EMBEDDING) c.put("embedding_dim", (long) proj[0]);
        }
        return c;
    }

    private static List<Long> longs(int[] values) {
        return IntStream.of(values).mapToObj(v -> (long) v).toList();
    }

    private static int[] shape(ModelWeights w, String name) {
        NameRow row = w.names().byName(name);
        NpyArray a = row == null ? null : w.tensors().get(name);
        return a == null ? null : a.shape();
    }

    /** A stored permutation (FP32 integers), checked by {@link MlpPermutations#checked}. */
    private static int[] permutation(ModelWeights w, String t) throws WorkbenchException {
        NpyArray a = w.tensors().get(t);
        if (a == null) throw new WorkbenchException(ErrorKind.MISSING_KEY, "the weights hold no " + t + " (the MLP permutation)");
        float[] values = a.asFloats();
        int[] p = new int[values.length];
        for (int i = 0; i < p.length; i++) {
            float v = values[i];
            if (v != Math.rint(v) || v < 0 || v >= Integer.MAX_VALUE) {
                throw new WorkbenchException(ErrorKind.BAD_VALUE, t + "[" + i + "] is " + v + ", not an index");
            }
            p[i] = (int) v;
        }
        return p;
    }
}
