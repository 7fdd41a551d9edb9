package dev.needlewb.converter.torch;

import dev.needlewb.core.io.NpyArray;
import dev.needlewb.golden.Golden;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The golden mini model's {@code deq} weights (deq_params.npz, the Flax tree rebuilt from
 * mini.cact) as a state dict with the workbench's PyTorch keys: Flax kernels [in, out]
 * transposed, stacked layers split, {@code mhc_phi_*} (L, 4d, k) transposed to (L, k, 4d) and
 * flattened to (L*k, 4d), engram tables (tables, slots, sub) flattened to (tables*slots, sub),
 * contrastive bias zeros (what the .cact stores). Independent of the converter's name map, to
 * check it.
 */
public final class GoldenTorchStateDict {
    private static final String BLOCK = "stack/layers/block/";

    private GoldenTorchStateDict() {}

    public static Map<String, NpyArray> mini() {
        Map<String, NpyArray> p = Golden.npz(Golden.mini("deq_params.npz"));
        Map<String, NpyArray> sd = new LinkedHashMap<>();
        sd.put("embedding.weight", p.get("embedding/embedding"));
        int layers = p.get("stack/mhc_a_pre").shape()[0];
        for (int l = 0; l < layers; l++) {
            String n = "layers." + l + ".";
            sd.put(n + "norm_in.weight", row(p.get(BLOCK + "ZCRMSNorm_0/scale"), l));
            for (String proj : new String[] {"q_proj", "k_proj", "v_proj", "gate_proj", "out_proj"}) {
                sd.put(n + "attn." + proj + ".weight", transpose(row(p.get(BLOCK + "self_attn/" + proj + "/kernel"), l)));
            }
            sd.put(n + "attn.q_norm.weight", row(p.get(BLOCK + "self_attn/q_norm/scale"), l));
            sd.put(n + "attn.k_norm.weight", row(p.get(BLOCK + "self_attn/k_norm/scale"), l));
            sd.put(n + "post_norm.weight", row(p.get(BLOCK + "post_attn_norm/scale"), l));
            sd.put(n + "attn_gate", reshape(row(p.get(BLOCK + "attn_gate"), l), 1));
            sd.put(n + "pre_hada.weight", row(p.get(BLOCK + "pre_hada_norm/scale"), l));
            for (String d : new String[] {"d1", "d2", "d3"}) sd.put(n + "mlp." + d, row(p.get(BLOCK + "hadamard_mlp/" + d), l));
        }
        for (String part : new String[] {"a_pre", "a_post", "a_res", "b_pre", "b_post", "b_res"}) sd.put("mhc." + part, p.get("stack/mhc_" + part));
        for (String phi : new String[] {"pre", "post", "res"}) {
            NpyArray flax = p.get("stack/mhc_phi_" + phi); // (L, 4d, k)
            int[] s = flax.shape();
            NpyArray[] perLayer = new NpyArray[s[0]];
            for (int l = 0; l < s[0]; l++) perLayer[l] = transpose(row(flax, l));
            sd.put("mhc.phi_" + phi + ".weight", reshape(concat(perLayer), s[0] * s[2], s[1]));
        }
        for (int site = 0; p.containsKey("engrams_" + site + "/taps"); site++) {
            String f = "engrams_" + site + "/", t = "engrams." + site + ".";
            NpyArray tables = p.get(f + "embedding");
            sd.put(t + "tables.weight", reshape(tables, tables.shape()[0] * tables.shape()[1], tables.shape()[2]));
            sd.put(t + "key_proj.weight", transpose(p.get(f + "key_proj/kernel")));
            sd.put(t + "value_proj.weight", transpose(p.get(f + "value_proj/kernel")));
            sd.put(t + "taps", p.get(f + "taps"));
        }
        sd.put("final_norm.weight", p.get("stack/final_norm/scale"));
        sd.put("contrastive_head.probes", p.get("contrastive_head/probes"));
        NpyArray contrastive = transpose(p.get("contrastive_head/proj/kernel"));
        sd.put("contrastive_head.proj.weight", contrastive);
        sd.put("contrastive_head.proj.bias", NpyArray.ofFloats(new int[] {contrastive.shape()[0]}, new float[contrastive.shape()[0]]));
        sd.put("confidence_head.probes", p.get("confidence_head/probes"));
        sd.put("confidence_head.proj.weight", transpose(p.get("confidence_head/proj/kernel")));
        sd.put("confidence_head.proj.bias", p.get("confidence_head/proj/bias"));
        return sd;
    }

    /** a[i] of a float32 array. */
    private static NpyArray row(NpyArray a, int i) {
        int[] s = a.shape();
        int[] rest = java.util.Arrays.copyOfRange(s, 1, s.length);
        int n = (int) NpyArray.elementCount(rest) * 4;
        return new NpyArray(a.descr(), rest, java.util.Arrays.copyOfRange(a.data(), i * n, (i + 1) * n));
    }

    private static NpyArray transpose(NpyArray a) {
        int r = a.shape()[0], c = a.shape()[1];
        byte[] out = new byte[a.data().length];
        for (int i = 0; i < r; i++) {
            for (int j = 0; j < c; j++) System.arraycopy(a.data(), (i * c + j) * 4, out, (j * r + i) * 4, 4);
        }
        return new NpyArray(a.descr(), new int[] {c, r}, out);
    }

    private static NpyArray concat(NpyArray[] parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (NpyArray part : parts) out.writeBytes(part.data());
        return new NpyArray(parts[0].descr(), new int[] {out.size() / 4}, out.toByteArray());
    }

    private static NpyArray reshape(NpyArray a, int... shape) {
        return new NpyArray(a.descr(), shape, a.data());
    }
}
