package dev.needlewb.converter.flax.v3;

import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class V3ConfigTest {
    /** The released Needle 3 geometry (SPEC section 8) as a saved config carries it. */
    static Map<String, Object> released() {
        Map<String, Object> c = new HashMap<>();
        c.put("vocab_size", 8192L);
        c.put("d_model", 768L);
        c.put("num_heads", 12L);
        c.put("num_kv_heads", 2L);
        c.put("num_layers", 20L);
        c.put("qk_head_dim", 48L);
        c.put("v_head_dim", 64L);
        c.put("max_seq_len", 8192L);
        c.put("sliding_window", 1024L);
        c.put("global_layers", List.of(4L, 9L, 14L, 19L));
        c.put("engram_layers", List.of(3L, 7L, 11L, 15L, 19L));
        c.put("qkv_conv_taps", 3L);
        c.put("kv_bits", 8L);
        return c;
    }

    @Test
    void releasedGeometry() throws WorkbenchException {
        V3Config c = V3Config.fromSaved(released());
        assertThat(c.qkDim()).isEqualTo(48);
        assertThat(c.vDim()).isEqualTo(64);
        assertThat(c.hadaN()).isEqualTo(1024);
        assertThat(new int[] {c.hadaBlockA(), c.hadaBlockB()}).containsExactly(32, 32);
        // 6 tables of sub_dim 128 and 18,432 slots: SPEC section 8's published figures
        assertThat(c.engram().headsPerOrder()).isEqualTo(3);
        assertThat(c.engram().tables()).isEqualTo(6);
        assertThat(c.engram().subDim()).isEqualTo(128);
        assertThat(c.engramSlots()).isEqualTo(18432);
        assertThat(c.engram().dilation()).isEqualTo(3);
        assertThat(c.logitRows()).isEqualTo(8192);
        assertThat(c.isGlobalLayer(4)).isTrue();
        assertThat(c.isGlobalLayer(5)).isFalse();
        assertThat(c).isEqualTo(V3Config.released());
    }

    @Test
    void missingKeysMeanOffNotTheClassDefault() throws WorkbenchException {
        // from_saved: no qkv_conv_taps means no conv, no sliding_window means every layer is global
        V3Config c = V3Config.fromSaved(Map.of());
        assertThat(c.qkvConvTaps()).isZero();
        assertThat(c.slidingWindow()).isZero();
        assertThat(c.globalLayers()).isEmpty();
        assertThat(c.isGlobalLayer(7)).isTrue();
        assertThat(c.qkDim()).isEqualTo(768 / 12);
        assertThat(c.vDim()).isEqualTo(768 / 12);
        assertThat(c.outVocab()).isZero();
        assertThat(c.logitRows()).isEqualTo(16384);
        assertThat(c.engramSeedHeads()).isZero();
        assertThat(c.attentionGate()).isEqualTo(V3Config.AttentionGate.ELEMENTWISE);
        assertThat(c.hadaFactorMode()).isEqualTo(V3Config.FactorMode.SHARED);
        // the rest keep the class defaults; engram_layers is cut to the stack when not passed
        assertThat(c.engramLayers()).containsExactly(3, 7, 11, 15, 19);
        assertThat(c.kvBits()).isEqualTo(8);
        assertThat(V3Config.fromSaved(Map.of("num_layers", 8L)).engramLayers()).containsExactly(3, 7);
        assertThat(V3Config.fromSaved(Map.of("num_layers", 8L, "engram_layers", List.of(5L))).engramLayers()).containsExactly(5);
    }

    @Test
    void engramSeedStrideIsTheSeedHeadsWhenSet() throws WorkbenchException {
        Map<String, Object> c = released();
        assertThat(V3Config.fromSaved(c).engramSeedStride()).isEqualTo(3);
        c.put("engram_seed_heads", 5L);
        assertThat(V3Config.fromSaved(c).engramSeedStride()).isEqualTo(5);
    }

    @Test
    void needle2ConfigIsRefused() {
        Map<String, Object> c = released();
        c.remove("qk_head_dim");
        c.put("attn_dim", 512L);
        refused(ErrorKind.WRONG_GENERATION, () -> V3Config.fromSaved(c));
    }

    /** The Kronecker factor sizes of _hada_blocks for every power of two d_model can round to. */
    @ParameterizedTest
    @CsvSource({"1,1,1", "2,1,2", "3,2,2", "64,8,8", "100,8,16", "128,8,16", "256,16,16", "512,16,32", "768,32,32", "1024,32,32"})
    void hadamardBlocks(int d, int a, int b) throws WorkbenchException {
        Map<String, Object> c = new HashMap<>(Map.of("d_model", (long) d, "num_heads", 1L, "num_kv_heads", 1L,
                "qk_head_dim", 2L, "engram_layers", List.of()));
        V3Config v = V3Config.fromSaved(c);
        assertThat(v.hadaBlockA() * v.hadaBlockB()).isEqualTo(v.hadaN());
        assertThat(new int[] {v.hadaBlockA(), v.hadaBlockB()}).containsExactly(a, b);
    }

    /** Every check of upstream TransformerConfig.__init__ plus what the forward needs, each refused by name. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "attention_gate|str:sideways|attention_gate",
        "hada_factor_mode|str:dense|hada_factor_mode",
        "engram_bank_ids|[0]|one bank id per Engram site",
        "engram_bank_ids|[0,0,0,0,-1]|non-negative",
        "engram_bank_ids|[0,0,2,2,2]|contiguous",
        "cla_pairs|[[1,2,3]]|producer and consumer",
        "cla_pairs|[[19,20]]|outside the model depth",
        "cla_pairs|[[1,3]]|adjacent",
        "cla_pairs|[[1,2],[2,3]]|more than one pair",
        "cla_pairs|[[3,4]]|mixes local and global",
        "qk_head_dim|47|odd",
        "out_vocab|8193|out_vocab",
        "engram_layers|[20]|engram layer 20",
        "num_kv_heads|5|multiple of num_kv_heads",
        "num_heads|0|num_heads",
        "sliding_window|-1|sliding_window",
        "kv_bits|-1|kv_bits",
        "rope_theta|str:big|rope_theta"})
    void invalidConfigsAreRefusedByName(String key, String value, String message) {
        Map<String, Object> c = released();
        c.put(key, pythonValue(value));
        // every config error is BAD_CONFIG: which rule refused is in the wording only
        assertThat(refused(ErrorKind.BAD_CONFIG, () -> V3Config.fromSaved(c))).hasMessageContaining(message);
    }

    /** A small literal as the unpickler returns it: str:text, an int, or nested [..] lists of ints. */
    private static Object pythonValue(String v) {
        if (v.startsWith("str:")) return v.substring(4);
        if (!v.startsWith("[")) return Long.parseLong(v);
        List<Object> out = new java.util.ArrayList<>();
        String inner = v.substring(1, v.length() - 1);
        int depth = 0;
        int start = 0;
        for (int i = 0; i <= inner.length(); i++) {
            char ch = i < inner.length() ? inner.charAt(i) : ',';
            if (ch == '[') depth++;
            if (ch == ']') depth--;
            if (ch == ',' && depth == 0) {
                if (i > start) out.add(pythonValue(inner.substring(start, i)));
                start = i + 1;
            }
        }
        return out;
    }

    @Test
    void equalConfigsAreEqual() throws WorkbenchException {
        assertThat(V3Config.fromSaved(released())).isEqualTo(V3Config.fromSaved(released()));
        Map<String, Object> other = released();
        other.put("global_layers", List.of(4L));
        assertThat(V3Config.fromSaved(other)).isNotEqualTo(V3Config.fromSaved(released()));
    }
}
