package dev.needlewb.reference.v3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.reference.MiniGolden;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Config variants the golden mini does not exercise. Each is checked against a path the golden
 * does cover, through an identity upstream's formulas imply, and the cached decoder against the
 * full forward.
 */
class V3VariantsTest {
    /** Only BLAS blocking differs between the two sides of these identities: a few ulps. */
    static final double SAME = 1e-13;

    private static final int[] TOKENS = SmallV3.tokens(23, 200, 5);

    @Test
    void outVocabKeepsTheFirstEmbeddingRowsAsLogits() {
        V3Config full = SmallV3.with();
        V3Config cut = SmallV3.with("out_vocab", 150L);
        Map<String, NpyArray> params = SmallV3.params(full);
        double[][] all = SmallV3.model(full, params).forward(TOKENS, V3Options.DEFAULT);
        double[][] first = SmallV3.model(cut, params).forward(TOKENS, V3Options.DEFAULT);
        assertThat(first[0]).hasSize(150);
        double[][] expected = Arrays.stream(all).map(r -> Arrays.copyOf(r, 150)).toArray(double[][]::new);
        assertThat(MiniGolden.relativeError(MiniGolden.flat(first), MiniGolden.flat(expected))).isLessThan(SAME);
    }

    /** Headwise: o_h * sigmoid(x @ g_h). Elementwise with each head's gate column repeated v times is the same. */
    @Test
    void headwiseGateIsTheElementwiseGateWithRepeatedColumns() {
        V3Config headwise = SmallV3.with("attention_gate", "headwise");
        V3Config elementwise = SmallV3.with();
        Map<String, NpyArray> params = SmallV3.params(headwise);
        String key = "stack/layers/block/self_attn/gate_proj/kernel";
        NpyArray g = params.get(key);
        int layers = 3, d = 64, heads = 4, vd = 24;
        float[] repeated = new float[layers * d * heads * vd];
        float[] gv = g.asFloats();
        for (int l = 0; l < layers; l++)
            for (int i = 0; i < d; i++)
                for (int h = 0; h < heads; h++)
                    for (int c = 0; c < vd; c++) repeated[((l * d + i) * heads + h) * vd + c] = gv[(l * d + i) * heads + h];
        Map<String, NpyArray> expanded = new HashMap<>(params);
        expanded.put(key, NpyArray.ofFloats(new int[] {layers, d, heads * vd}, repeated));
        for (V3Options o : new V3Options[] {V3Options.DEFAULT, V3Options.DEPLOY}) {
            double[] a = MiniGolden.flat(SmallV3.model(headwise, params).forward(TOKENS, o));
            double[] b = MiniGolden.flat(SmallV3.model(elementwise, expanded).forward(TOKENS, o));
            assertThat(MiniGolden.relativeError(a, b)).as("quant %s", o.quant()).isLessThan(SAME);
        }
    }

    /** block_untied factors whose blocks all equal the shared pair compute the shared stage. */
    @Test
    void untiedFactorsWithEqualBlocksAreTheSharedFactors() {
        V3Config shared = SmallV3.with();
        V3Config untied = SmallV3.with("hada_factor_mode", "block_untied");
        Map<String, NpyArray> params = SmallV3.params(shared);
        Map<String, NpyArray> tiled = new HashMap<>(params);
        int layers = 3, ba = shared.hadaBlockA(), bb = shared.hadaBlockB();
        for (int s = 1; s <= 3; s++) {
            tiled.put("stack/layers/block/hadamard_mlp/w" + s + "a", tile(params.get("stack/layers/block/hadamard_mlp/w" + s + "a"), layers, bb, ba));
            tiled.put("stack/layers/block/hadamard_mlp/w" + s + "b", tile(params.get("stack/layers/block/hadamard_mlp/w" + s + "b"), layers, ba, bb));
        }
        double[] a = MiniGolden.flat(SmallV3.model(shared, params).forward(TOKENS, V3Options.DEFAULT));
        double[] b = MiniGolden.flat(SmallV3.model(untied, tiled).forward(TOKENS, V3Options.DEFAULT));
        assertThat(MiniGolden.relativeError(b, a)).isLessThan(SAME);
    }

    /** [layers, size, size] repeated {@code blocks} times per layer: [layers, blocks, size, size]. */
    private static NpyArray tile(NpyArray factor, int layers, int blocks, int size) {
        float[] f = factor.asFloats();
        float[] out = new float[layers * blocks * size * size];
        for (int l = 0; l < layers; l++)
            for (int b = 0; b < blocks; b++) System.arraycopy(f, l * size * size, out, (l * blocks + b) * size * size, size * size);
        return NpyArray.ofFloats(new int[] {layers, blocks, size, size}, out);
    }

    /** Upstream adds every site flagged for a layer; a second site whose values are all zero adds nothing. */
    @Test
    void twoSitesAtOneLayerAddBothInjections() {
        V3Config one = SmallV3.with("engram_layers", List.of(0L, 2L));
        V3Config two = SmallV3.with("engram_layers", List.of(0L, 2L, 2L));
        Map<String, NpyArray> params = SmallV3.params(two);
        Map<String, NpyArray> silent = new HashMap<>(params);
        NpyArray v = params.get("engrams_2/value_proj/kernel");
        silent.put("engrams_2/value_proj/kernel", NpyArray.ofFloats(v.shape(), new float[v.size()]));
        double[] a = MiniGolden.flat(SmallV3.model(one, params).forward(TOKENS, V3Options.DEFAULT));
        double[] b = MiniGolden.flat(SmallV3.model(two, silent).forward(TOKENS, V3Options.DEFAULT));
        assertThat(MiniGolden.relativeError(b, a)).isLessThan(SAME);
        double[] c = MiniGolden.flat(SmallV3.model(two, params).forward(TOKENS, V3Options.DEFAULT));
        assertThat(MiniGolden.relativeError(c, a)).as("the second site's injection counts").isGreaterThan(1e-6);
    }

    static Stream<Arguments> variants() {
        return Stream.of(
                Arguments.of("every feature", SmallV3.with(), V3Options.DEFAULT),
                Arguments.of("quant, kv_bits 8", SmallV3.with(), V3Options.DEPLOY),
                Arguments.of("quant, kv_bits 4 (CQ)", SmallV3.with(), V3Options.DEPLOY.withKvBits(4)),
                Arguments.of("quant, kv_bits 1 (CQ)", SmallV3.with(), V3Options.DEPLOY.withKvBits(1)),
                Arguments.of("window 2 < conv taps 4", SmallV3.with("sliding_window", 2L, "qkv_conv_taps", 4L), V3Options.DEFAULT),
                Arguments.of("window 1", SmallV3.with("sliding_window", 1L), V3Options.DEFAULT),
                Arguments.of("no window", SmallV3.with("sliding_window", 0L), V3Options.DEFAULT),
                Arguments.of("no conv", SmallV3.with("qkv_conv_taps", 0L), V3Options.DEFAULT),
                Arguments.of("one conv tap", SmallV3.with("qkv_conv_taps", 1L), V3Options.DEFAULT),
                Arguments.of("headwise gate", SmallV3.with("attention_gate", "headwise"), V3Options.DEPLOY),
                Arguments.of("block_untied", SmallV3.with("hada_factor_mode", "block_untied"), V3Options.DEFAULT),
                Arguments.of("split permutations", SmallV3.with("ladder_widths", List.of(32L)), V3Options.DEFAULT),
                Arguments.of("engram seed heads", SmallV3.with("engram_seed_heads", 3L), V3Options.DEFAULT),
                Arguments.of("head dims d / H", SmallV3.with("qk_head_dim", 0L, "v_head_dim", 0L), V3Options.DEFAULT),
                Arguments.of("no engram", SmallV3.with("engram_layers", List.of()), V3Options.DEFAULT),
                Arguments.of("GQA 4/1", SmallV3.with("num_kv_heads", 1L), V3Options.DEFAULT));
    }

    /** The cached decoder (prefill 4, then steps) against the full forward, for each variant. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void cachedDecodeMatchesTheFullForward(String name, V3Config c, V3Options o) {
        V3Model model = SmallV3.model(c);
        double[] full = MiniGolden.flat(model.forward(TOKENS, o));
        double[] cached = MiniGolden.flat(V3DecodeGoldenTest.stepwise(model, TOKENS, 4, o));
        assertThat(MiniGolden.relativeError(cached, full)).as(name).isLessThan(V3DecodeGoldenTest.TOLERANCE);
    }

    /**
     * Each variant changes the logits against the baseline config under the same quant setting
     * (kv_bits 8 for the quant variants): its parameters or switches are really read.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void variantsAreNotTheBaseline(String name, V3Config c, V3Options o) {
        V3Options baseOptions = o.quant() ? V3Options.DEPLOY : V3Options.DEFAULT;
        if (c.equals(SmallV3.with()) && o.kvBits() == baseOptions.kvBits()) return;
        double[] b = MiniGolden.flat(SmallV3.model(SmallV3.with()).forward(TOKENS, baseOptions));
        double[] v = MiniGolden.flat(SmallV3.model(c).forward(TOKENS, o));
        assertThat(MiniGolden.relativeError(v, b)).as(name).isGreaterThan(1e-9);
    }
}
