package dev.needlewb.reference.v3;

import static dev.needlewb.core.Refusals.refused;
import dev.needlewb.converter.v3.V3ProbeHead;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.reference.MiniGolden;
import dev.needlewb.reference.Taps;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The public entry points on the small synthetic model: heads, generation, decoder limits, load errors. */
class V3ModelApiTest {
    private static final V3Config CONFIG = SmallV3.with();
    private static final Map<String, NpyArray> PARAMS = SmallV3.params(CONFIG);
    private static final V3Model MODEL = SmallV3.model(CONFIG, PARAMS);
    private static final int[] TOKENS = SmallV3.tokens(19, 200, 9);

    @Test
    void everyProbeHeadGivesItsOutputs() throws WorkbenchException {
        for (V3ProbeHead kind : V3ProbeHead.values()) assertThat(MODEL.hasHead(kind)).isTrue();
        double[] router = MODEL.router(TOKENS, V3Options.DEFAULT);
        assertThat(router).hasSize(3);
        assertThat(Arrays.stream(router).allMatch(Double::isFinite)).isTrue();
        double[] e = MODEL.embedding(TOKENS, V3Options.DEFAULT);
        assertThat(e).hasSize(16);
        assertThat(Math.sqrt(Arrays.stream(e).map(v -> v * v).sum())).isCloseTo(1.0, org.assertj.core.api.Assertions.within(1e-12));
        double q0 = MODEL.confidence(TOKENS, V3Options.DEFAULT);
        double q1 = MODEL.confidence(TOKENS, V3Options.DEPLOY);
        assertThat(q1).isFinite().isNotEqualTo(q0);
    }

    /** Trailing PAD positions are left out of the pooling and hidden from every other position. */
    @Test
    void paddingIsInvisibleToTheHeads() throws WorkbenchException {
        int[] padded = Arrays.copyOf(TOKENS, TOKENS.length + 4);
        assertThat(MODEL.confidence(padded, V3Options.DEFAULT)).isCloseTo(MODEL.confidence(TOKENS, V3Options.DEFAULT),
                org.assertj.core.api.Assertions.within(1e-12));
        assertThatThrownBy(() -> MODEL.confidence(new int[3], V3Options.DEFAULT)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("every token is PAD");
    }

    /**
     * Leading PADs are hidden from every real position (keys, conv taps, engram n-grams and taps
     * alike), and q0 attention is relative in position: the real rows of hidden_cells are those of
     * the unpadded sequence. The PAD rows see no key at all (upstream then spreads the weights
     * over every key); nothing of them may leak into the real rows. (Not in quant mode: there Q
     * and K are rounded after RoPE, at their absolute angle, so a shift changes the codes.)
     */
    @Test
    void leadingPadsDoNotReachTheRealPositions() {
        int[] padded = new int[TOKENS.length + 2];
        System.arraycopy(TOKENS, 0, padded, 2, TOKENS.length);
        double[][][] cells = MODEL.hiddenCells(padded, V3Options.DEFAULT);
        double[][][] plain = MODEL.hiddenCells(TOKENS, V3Options.DEFAULT);
        assertThat(Arrays.stream(cells[0]).flatMapToDouble(Arrays::stream).allMatch(Double::isFinite)).isTrue();
        double[] real = MiniGolden.flat(Arrays.copyOfRange(cells, 2, cells.length));
        assertThat(MiniGolden.relativeError(real, MiniGolden.flat(plain))).isLessThan(1e-12);
    }

    @Test
    void aMissingHeadIsNamed() throws WorkbenchException {
        Map<String, NpyArray> noHeads = new HashMap<>(PARAMS);
        noHeads.keySet().removeIf(k -> k.startsWith("router_head/"));
        V3Model model = V3Model.load(noHeads, CONFIG);
        assertThat(model.hasHead(V3ProbeHead.ROUTER)).isFalse();
        refused(ErrorKind.MISSING_KEY, () -> model.router(TOKENS, V3Options.DEFAULT));
    }

    /** Greedy ids are the argmax of the full forward of each growing prefix (upstream reruns the buffer). */
    @Test
    void generationIsTheArgmaxOfEachPrefix() {
        int[] prompt = Arrays.copyOf(TOKENS, 6);
        int[] ids = MODEL.generate(prompt, 9, V3Options.DEFAULT);
        int[] sequence = Arrays.copyOf(prompt, prompt.length + ids.length);
        System.arraycopy(ids, 0, sequence, prompt.length, ids.length);
        double[][] logits = MODEL.forward(sequence, V3Options.DEFAULT);
        for (int i = 0; i < ids.length; i++) assertThat(ids[i]).isEqualTo(V3Model.argmax(logits[prompt.length - 1 + i]));
        assertThat(ids).hasSize(9).doesNotContain(V3Model.EOS_ID);
    }

    /** With embedding rows 1 and x swapped, EOS takes the greedy token x's logit: generation stops at once, emitting nothing. */
    @Test
    void generationStopsBeforeEos() throws WorkbenchException {
        int[] prompt = Arrays.copyOf(TOKENS, 6);
        int x = MODEL.generate(prompt, 1, V3Options.DEFAULT)[0];
        assertThat(prompt).doesNotContain(x);
        float[] e = PARAMS.get("embedding/embedding").asFloats();
        int d = CONFIG.dModel();
        for (int c = 0; c < d; c++) {
            float t = e[V3Model.EOS_ID * d + c];
            e[V3Model.EOS_ID * d + c] = e[x * d + c];
            e[x * d + c] = t;
        }
        Map<String, NpyArray> swapped = new HashMap<>(PARAMS);
        swapped.put("embedding/embedding", NpyArray.ofFloats(new int[] {CONFIG.vocabSize(), d}, e));
        assertThat(V3Model.load(swapped, CONFIG).generate(prompt, 5, V3Options.DEFAULT)).isEmpty();
    }

    /** The buffer is min(max_seq_len, prompt + new): a prompt that fills it is refused, as upstream does. */
    @Test
    void generationRespectsMaxSeqLen() {
        int[] prompt = SmallV3.tokens(126, 200, 3);
        assertThat(MODEL.generate(prompt, 10, V3Options.DEFAULT).length).isLessThanOrEqualTo(2);
        assertThatThrownBy(() -> MODEL.generate(SmallV3.tokens(128, 200, 3), 10, V3Options.DEFAULT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("max_seq_len=128");
    }

    @Test
    void decoderLimits() {
        V3Decoder decoder = MODEL.decoder(5, V3Options.DEFAULT);
        decoder.prefill(Arrays.copyOf(TOKENS, 4));
        assertThatThrownBy(() -> decoder.prefill(TOKENS)).isInstanceOf(IllegalStateException.class);
        decoder.step(TOKENS[4]);
        assertThatThrownBy(() -> decoder.step(TOKENS[5])).isInstanceOf(IllegalStateException.class).hasMessageContaining("capacity 5");
        assertThatThrownBy(() -> MODEL.decoder(5, V3Options.DEFAULT.withTaps(Taps.all()))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MODEL.decoder(5, V3Options.DEFAULT.withPaddingMask(true))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MODEL.decoder(0, V3Options.DEFAULT)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void tokensOutsideTheVocabularyAreRefused() {
        assertThatThrownBy(() -> MODEL.forward(new int[] {5, 200}, V3Options.DEFAULT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("token 200 at position 1");
        assertThatThrownBy(() -> MODEL.forward(new int[0], V3Options.DEFAULT)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aMissingOrMisshapenParameterIsNamedByPath() {
        Map<String, NpyArray> missing = new HashMap<>(PARAMS);
        missing.remove("stack/layers/block/self_attn/v_taps");
        // the parameter is named in the wording only (these refusals carry no tensor field)
        assertThat(refused(ErrorKind.MISSING_KEY, () -> V3Model.load(missing, CONFIG))).hasMessageContaining("stack/layers/block/self_attn/v_taps");
        Map<String, NpyArray> misshapen = new HashMap<>(PARAMS);
        misshapen.put("stack/layers/block/hadamard_mlp/cond_u", NpyArray.ofFloats(new int[] {3, 8, 100}, new float[3 * 8 * 100]));
        assertThat(refused(ErrorKind.SHAPE_MISMATCH, () -> V3Model.load(misshapen, CONFIG))).hasMessageContaining("hadamard_mlp/cond_u");
    }

    @Test
    void engramBanksAndClaPairsAreRefusedClearly() {
        assertThat(refused(ErrorKind.UNSUPPORTED, () -> V3Model.load(PARAMS, SmallV3.with("engram_bank_ids", List.of(0L, 0L)))))
                .hasMessageContaining("engram_bank_ids"); // which feature is in the wording only
        assertThat(refused(ErrorKind.UNSUPPORTED, () -> V3Model.load(PARAMS, SmallV3.with("cla_pairs", List.of(List.of(1L, 2L)), "global_layers", List.of()))))
                .hasMessageContaining("cla_pairs");
    }
}
