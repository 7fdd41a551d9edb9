package dev.needlewb.reference.v3;

import dev.needlewb.converter.v3.V3ProbeHead;
import static org.junit.jupiter.api.Assertions.fail;

import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A small Needle 3 config with every feature on (3 layers, local ones with a window of 5 and
 * global layer 1, 3 conv taps, qk 16 / v 24, engram sites 0 and 2) and variants of it, with
 * synthetic parameters: for structural tests of paths the golden mini does not take.
 */
final class SmallV3 {
    private SmallV3() {}

    static Map<String, Object> saved() {
        Map<String, Object> c = new HashMap<>();
        c.put("vocab_size", 200L);
        c.put("d_model", 64L);
        c.put("num_heads", 4L);
        c.put("num_kv_heads", 2L);
        c.put("num_layers", 3L);
        c.put("qk_head_dim", 16L);
        c.put("v_head_dim", 24L);
        c.put("max_seq_len", 128L);
        c.put("sliding_window", 5L);
        c.put("global_layers", List.of(1L));
        c.put("qkv_conv_taps", 3L);
        c.put("engram_layers", List.of(0L, 2L));
        c.put("engram_slots", 64L);
        c.put("confidence_probes", 3L);
        c.put("confidence_queries", 2L);
        c.put("router_probes", 2L);
        c.put("router_queries", 3L);
        c.put("embedding_dim", 16L);
        return c;
    }

    static V3Config config(Map<String, Object> saved) {
        try {
            return V3Config.fromSaved(saved);
        } catch (WorkbenchException e) {
            return fail(e.getMessage());
        }
    }

    /** The small config with {@code key = value} changed (values as the unpickler gives them). */
    static V3Config with(Object... keyValues) {
        Map<String, Object> c = saved();
        for (int i = 0; i < keyValues.length; i += 2) c.put((String) keyValues[i], keyValues[i + 1]);
        return config(c);
    }

    static Map<String, NpyArray> params(V3Config c) {
        return SyntheticV3Params.flax(c, EnumSet.allOf(V3ProbeHead.class), 17);
    }

    static V3Model model(V3Config c, Map<String, NpyArray> params) {
        try {
            return V3Model.load(params, c);
        } catch (WorkbenchException e) {
            return fail(e.getMessage());
        }
    }

    static V3Model model(V3Config c) {
        return model(c, params(c));
    }

    /** {@code count} tokens in [3, vocab): no PAD (0), EOS (1) or BOS (2). */
    static int[] tokens(int count, int vocab, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int[] t = new int[count];
        for (int i = 0; i < count; i++) t[i] = 3 + r.nextInt(vocab - 3);
        return t;
    }
}
