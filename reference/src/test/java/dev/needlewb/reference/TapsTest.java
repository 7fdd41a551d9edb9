package dev.needlewb.reference;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Structural checks of the taps on the golden mini model (sequence s007). */
class TapsTest {
    private static final int[] TOKENS = MiniGolden.tokens("s007");

    @Test
    void tapsComeInExecutionOrderWithTheirShapes() {
        Taps taps = Taps.all();
        MiniGolden.deq().forward(TOKENS, ForwardOptions.DEFAULT.withTaps(taps));
        List<String> names = List.copyOf(taps.recorded().keySet());
        List<String> layer = List.of("lanes_in", "hpre", "u", "attn.q", "attn.k", "attn.v", "attn.out",
                "block_out", "hpost", "sinkhorn", "lanes_out");
        assertThat(names.subList(0, 12)).containsExactly("embed", "layer00.lanes_in", "layer00.hpre", "layer00.u",
                "layer00.attn.q", "layer00.attn.k", "layer00.attn.v", "layer00.attn.out", "layer00.block_out",
                "layer00.hpost", "layer00.sinkhorn", "layer00.lanes_out");
        // layer 1 is an engram site of the mini geometry: its alpha comes right after u
        assertThat(names.subList(12, 24)).containsExactly("layer01.lanes_in", "layer01.hpre", "layer01.u",
                "layer01.engram_alpha", "layer01.attn.q", "layer01.attn.k", "layer01.attn.v", "layer01.attn.out",
                "layer01.block_out", "layer01.hpost", "layer01.sinkhorn", "layer01.lanes_out");
        assertThat(names).hasSize(1 + 6 * layer.size() + 2 + 2).endsWith("final.norm", "logits");

        int t = TOKENS.length;
        assertThat(taps.get("embed").shape()).containsExactly(t, 128);
        assertThat(taps.get("layer03.lanes_in").shape()).containsExactly(t, 4, 128);
        assertThat(taps.get("layer03.hpre").shape()).containsExactly(t, 4);
        assertThat(taps.get("layer04.engram_alpha").shape()).containsExactly(t);
        assertThat(taps.get("layer03.attn.q").shape()).containsExactly(t, 4, 32);
        assertThat(taps.get("layer03.attn.k").shape()).containsExactly(t, 2, 32);
        assertThat(taps.get("layer03.attn.v").shape()).containsExactly(t, 2, 32);
        assertThat(taps.get("layer03.attn.out").shape()).containsExactly(t, 128);
        assertThat(taps.get("layer03.sinkhorn").shape()).containsExactly(t, 4, 4);
        assertThat(taps.get("logits").shape()).containsExactly(t, 512);
        assertThat(taps.toNpz().get("layer03.u").shape()).containsExactly(t, 128);
    }

    @Test
    void tapsAgreeWithEachOtherAndWithTheOutputs() {
        Taps taps = Taps.all();
        double[][] logits = MiniGolden.deq().forward(TOKENS, ForwardOptions.DEFAULT.withTaps(taps));
        // recording must not change a single bit of the result (nor may the JIT tier: run it many times)
        for (int run = 0; run < 30; run++) {
            assertThat(MiniGolden.flat(MiniGolden.deq().forward(TOKENS, ForwardOptions.DEFAULT)))
                    .containsExactly(MiniGolden.flat(logits));
        }
        assertThat(taps.get("logits").values()).containsExactly(MiniGolden.flat(logits));
        for (int l = 0; l < 5; l++) {
            assertThat(taps.get(Taps.layer(l + 1) + "lanes_in").values())
                    .containsExactly(taps.get(Taps.layer(l) + "lanes_out").values());
        }
        // Sinkhorn ends on a column normalisation: columns sum to 1 up to rounding (4 terms, 1e-15)
        double[] p = taps.get("layer02.sinkhorn").values();
        for (int i = 0; i < TOKENS.length; i++)
            for (int c = 0; c < 4; c++) {
                double sum = 0;
                for (int r = 0; r < 4; r++) sum += p[i * 16 + r * 4 + c];
                assertThat(sum).isCloseTo(1.0, org.assertj.core.api.Assertions.within(1e-12));
            }
        // hpost = 2 sigmoid(.) lies in (0, 2); hpre = sigmoid(.) in (0, 1)
        assertThat(java.util.Arrays.stream(taps.get("layer02.hpost").values()).allMatch(v -> v > 0 && v < 2)).isTrue();
        assertThat(java.util.Arrays.stream(taps.get("layer02.hpre").values()).allMatch(v -> v > 0 && v < 1)).isTrue();
    }

    @Test
    void aFilterRecordsOnlyWhatItAccepts() {
        Taps taps = Taps.matching(name -> name.startsWith("layer03."));
        MiniGolden.deq().forward(TOKENS, ForwardOptions.DEFAULT.withTaps(taps));
        assertThat(taps.recorded().keySet()).hasSize(11).allSatisfy(n -> assertThat(n).startsWith("layer03."));
        assertThat(Taps.off().isOff()).isTrue();
        assertThat(Taps.off().wants("embed")).isFalse();
    }
}
