package dev.needlewb.reference.v3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.reference.MiniGolden;
import dev.needlewb.reference.Taps;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The taps of the golden mini (4 layers, window 16 with global layer 2, engram sites 1 and 3) on s040. */
class V3TapsTest {
    private static final int[] TOKENS = V3Golden.tokens("s040");
    private static final int T = TOKENS.length;

    @Test
    void tapsComeInExecutionOrderWithTheirShapes() {
        Taps taps = Taps.all();
        V3Golden.model("deq").forward(TOKENS, V3Options.DEFAULT.withTaps(taps));
        List<String> names = List.copyOf(taps.recorded().keySet());
        List<String> layer = List.of("lanes_in", "hpre", "u", "attn.q_conv", "attn.k_conv", "attn.v_conv", "attn.q",
                "attn.k", "attn.v", "attn.out", "mlp.in", "mlp.cond", "mlp.z1", "mlp.z2", "mlp.z3", "mlp.out", "block_out",
                "hpost", "sinkhorn", "lanes_out");
        assertThat(names.subList(1, 1 + layer.size())).containsExactlyElementsOf(layer.stream().map(n -> "layer00." + n).toList());
        // layer 1 is an engram site: its alpha comes right after u
        assertThat(names.subList(1 + layer.size(), 5 + layer.size()))
                .containsExactly("layer01.lanes_in", "layer01.hpre", "layer01.u", "layer01.engram_alpha");
        assertThat(names).hasSize(1 + 4 * layer.size() + 2 + 2).startsWith("embed").endsWith("final.norm", "logits");

        assertThat(taps.get("embed").shape()).containsExactly(T, 128);
        assertThat(taps.get("layer02.lanes_in").shape()).containsExactly(T, 4, 128);
        assertThat(taps.get("layer03.engram_alpha").shape()).containsExactly(T);
        assertThat(taps.get("layer02.attn.q_conv").shape()).containsExactly(T, 128);
        assertThat(taps.get("layer02.attn.k_conv").shape()).containsExactly(T, 64);
        assertThat(taps.get("layer02.attn.v_conv").shape()).containsExactly(T, 96);
        assertThat(taps.get("layer02.attn.q").shape()).containsExactly(T, 4, 32);
        assertThat(taps.get("layer02.attn.k").shape()).containsExactly(T, 2, 32);
        assertThat(taps.get("layer02.attn.v").shape()).containsExactly(T, 2, 48);
        assertThat(taps.get("layer02.attn.out").shape()).containsExactly(T, 128);
        assertThat(taps.get("layer02.mlp.cond").shape()).containsExactly(T, 128);
        assertThat(taps.get("layer02.mlp.z3").shape()).containsExactly(T, 128);
        assertThat(taps.get("layer02.mlp.out").shape()).containsExactly(T, 128);
        assertThat(taps.get("layer02.sinkhorn").shape()).containsExactly(T, 4, 4);
        assertThat(taps.get("logits").shape()).containsExactly(T, 512);
    }

    @Test
    void tapsAgreeWithEachOtherAndWithTheOutputs() {
        Taps taps = Taps.all();
        double[][] logits = V3Golden.model("deq").forward(TOKENS, V3Options.DEFAULT.withTaps(taps));
        // recording must not change a single bit of the result
        assertThat(MiniGolden.flat(V3Golden.model("deq").forward(TOKENS, V3Options.DEFAULT))).containsExactly(MiniGolden.flat(logits));
        assertThat(taps.get("logits").values()).containsExactly(MiniGolden.flat(logits));
        for (int l = 0; l < 3; l++) {
            assertThat(taps.get(Taps.layer(l + 1) + "lanes_in").values()).containsExactly(taps.get(Taps.layer(l) + "lanes_out").values());
        }
        // hidden_states is the lane mean after each layer
        double[][][] hidden = V3Golden.model("deq").hiddenStates(TOKENS, V3Options.DEFAULT);
        double[] lanes = taps.get("layer02.lanes_out").values();
        for (int t = 0; t < T; t++) {
            for (int c = 0; c < 128; c++) {
                double sum = 0;
                for (int lane = 0; lane < 4; lane++) sum += lanes[(t * 4 + lane) * 128 + c];
                assertThat(hidden[2][t][c]).isEqualTo(sum / 4);
            }
        }
        // the conditioner is 1 + a convex mix of cond_u's rows
        assertThat(java.util.Arrays.stream(taps.get("layer01.mlp.cond").values()).allMatch(Double::isFinite)).isTrue();
        // engram gates are sigmoids
        assertThat(java.util.Arrays.stream(taps.get("layer01.engram_alpha").values()).allMatch(v -> v > 0 && v < 1)).isTrue();
    }
}
