package dev.needlewb.reference;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.golden.Golden;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Golden item e: decode.npz / decode.json, upstream decode._forward_cached (raw and deq params). */
@Tag("width")
class DecodeGoldenTest {
    /** One call on the whole prompt; item {@code prefill<suffix>.<seq>.<p>}. */
    @ParameterizedTest
    @CsvSource({"s001,,0,0,raw", "s007,,0,0,raw", "s040,,0,0,raw", "s300,,0,0,raw", "s040,_w16s3,16,3,raw",
        "s300,_w256,256,0,raw", "s001,,0,0,deq", "s007,,0,0,deq", "s040,,0,0,deq", "s300,,0,0,deq",
        "s040,_w16s3,16,3,deq", "s300,_w256,256,0,deq"})
    void prefillMatches(String seq, String suffix, int window, int sinks, String p) {
        int[] tokens = MiniGolden.tokens(seq);
        Decoder decoder = MiniGolden.model(p).decoder(tokens.length, options(window, sinks));
        double[][] logits = decoder.prefill(tokens);
        String item = "prefill" + (suffix == null ? "" : suffix) + "." + seq + "." + p;
        assertThat(MiniGolden.relativeError(MiniGolden.flat(logits), MiniGolden.array("decode.npz", item).asDoubles()))
                .as(item).isLessThan(ForwardGoldenTest.TOLERANCE);
    }

    /** A prefill of the first {@code prefill} tokens, then one call per token; item {@code stepwise<suffix>.<seq>.<p>}. */
    @ParameterizedTest
    @CsvSource({"s001,,0,0,raw", "s007,,0,0,raw", "s040,,0,0,raw", "s300,,0,0,raw", "s040,_w16s3,16,3,raw",
        "s300,_w256,256,0,raw", "s001,,0,0,deq", "s007,,0,0,deq", "s040,,0,0,deq", "s300,,0,0,deq",
        "s040,_w16s3,16,3,deq", "s300,_w256,256,0,deq"})
    void stepwiseMatches(String seq, String suffix, int window, int sinks, String p) {
        int[] tokens = MiniGolden.tokens(seq);
        double[][] logits = stepwise(MiniGolden.model(p), tokens, MiniGolden.prefill(seq), options(window, sinks));
        String item = "stepwise" + (suffix == null ? "" : suffix) + "." + seq + "." + p;
        assertThat(MiniGolden.relativeError(MiniGolden.flat(logits), MiniGolden.array("decode.npz", item).asDoubles()))
                .as(item).isLessThan(ForwardGoldenTest.TOLERANCE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"raw", "deq"})
    void prefillCachesMatch(String p) {
        int[] tokens = MiniGolden.tokens("s040");
        Decoder decoder = MiniGolden.model(p).decoder(tokens.length, ForwardOptions.DEFAULT);
        decoder.prefill(tokens);
        assertThat(MiniGolden.relativeError(decoder.keys().asDoubles(),
                MiniGolden.array("decode.npz", "kcache.s040." + p).asDoubles())).as("kcache.s040.%s", p)
                .isLessThan(ForwardGoldenTest.TOLERANCE);
        assertThat(MiniGolden.relativeError(decoder.values().asDoubles(),
                MiniGolden.array("decode.npz", "vcache.s040." + p).asDoubles())).as("vcache.s040.%s", p)
                .isLessThan(ForwardGoldenTest.TOLERANCE);
        assertThat(decoder.keys().shape()).containsExactly(6, 2, 40, 32);
    }

    /** decode.json generate_cached: upstream's greedy continuation (margins >= 0.69, so argmax is stable). */
    @ParameterizedTest
    @CsvSource({"raw,0", "raw,16", "deq,0", "deq,16"})
    void greedyGenerationMatches(String p, int window) {
        JsonNode run = Golden.json(Golden.mini("decode.json")).get("generate_cached").get(p + ".kv" + window);
        int[] prompt = ints(run.get("prompt_ids"));
        int[] expected = ints(run.get("generated_ids"));
        // upstream's max_len = min(max_seq_len, prompt + max_new_tokens) and no sinks (_doc_prefix_len is 0)
        Decoder decoder = MiniGolden.model(p).decoder(prompt.length + expected.length, options(window, 0));
        double[][] first = decoder.prefill(prompt);
        int[] generated = new int[expected.length];
        double[] last = first[first.length - 1];
        for (int i = 0; i < generated.length; i++) {
            generated[i] = argmax(last);
            if (i + 1 < generated.length) last = decoder.step(generated[i]);
        }
        assertThat(generated).containsExactly(expected);
    }

    /** The full-sequence and cached paths are the same computation on a plain causal prompt. */
    @Test
    void fullSequenceAndCachedPathsAgree() {
        int[] tokens = MiniGolden.tokens("s040");
        double[] full = MiniGolden.flat(MiniGolden.deq().forward(tokens, ForwardOptions.DEFAULT));
        double[] cached = MiniGolden.flat(stepwise(MiniGolden.deq(), tokens, 5, ForwardOptions.DEFAULT));
        // only the grouping of rows into dgemm calls differs: a few ulps
        assertThat(MiniGolden.relativeError(cached, full)).isLessThan(1e-12);
    }

    static double[][] stepwise(ReferenceModel model, int[] tokens, int prefill, ForwardOptions o) {
        Decoder decoder = model.decoder(tokens.length, o);
        double[][] out = new double[tokens.length][];
        double[][] first = decoder.prefill(java.util.Arrays.copyOf(tokens, prefill));
        System.arraycopy(first, 0, out, 0, prefill);
        for (int t = prefill; t < tokens.length; t++) out[t] = decoder.step(tokens[t]);
        return out;
    }

    private static ForwardOptions options(int window, int sinks) {
        return window == 0 ? ForwardOptions.DEFAULT : ForwardOptions.DEFAULT.withWindow(window, sinks);
    }

    private static int[] ints(JsonNode node) {
        int[] out = new int[node.size()];
        for (int i = 0; i < out.length; i++) out[i] = node.get(i).asInt();
        return out;
    }

    private static int argmax(double[] v) {
        int best = 0;
        for (int i = 1; i < v.length; i++) if (v[i] > v[best]) best = i;
        return best;
    }
}
