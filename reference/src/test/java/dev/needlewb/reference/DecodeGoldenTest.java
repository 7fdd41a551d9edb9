package dev.needlewb.reference;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.golden.Golden;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Golden item e: decode.npz / decode.json, upstream decode._forward_cached (deq params). */
class DecodeGoldenTest {
    /** One call on the whole prompt; item {@code prefill<suffix>.<seq>.deq}. */
    @ParameterizedTest
    @CsvSource({"s001,,0,0", "s007,,0,0", "s040,,0,0", "s300,,0,0", "s040,_w16s3,16,3", "s300,_w256,256,0"})
    void prefillMatches(String seq, String suffix, int window, int sinks) {
        int[] tokens = MiniGolden.tokens(seq);
        Decoder decoder = MiniGolden.deq().decoder(tokens.length, options(window, sinks));
        double[][] logits = decoder.prefill(tokens);
        String item = "prefill" + (suffix == null ? "" : suffix) + "." + seq + ".deq";
        assertThat(MiniGolden.relativeError(MiniGolden.flat(logits), MiniGolden.array("decode.npz", item).asDoubles()))
                .as(item).isLessThan(ForwardGoldenTest.TOLERANCE);
    }

    /** A prefill of the first {@code prefill} tokens, then one call per token; item {@code stepwise<suffix>.<seq>.deq}. */
    @ParameterizedTest
    @CsvSource({"s001,,0,0", "s007,,0,0", "s040,,0,0", "s300,,0,0", "s040,_w16s3,16,3", "s300,_w256,256,0"})
    void stepwiseMatches(String seq, String suffix, int window, int sinks) {
        int[] tokens = MiniGolden.tokens(seq);
        double[][] logits = stepwise(tokens, MiniGolden.prefill(seq), options(window, sinks));
        String item = "stepwise" + (suffix == null ? "" : suffix) + "." + seq + ".deq";
        assertThat(MiniGolden.relativeError(MiniGolden.flat(logits), MiniGolden.array("decode.npz", item).asDoubles()))
                .as(item).isLessThan(ForwardGoldenTest.TOLERANCE);
    }

    @Test
    void prefillCachesMatch() {
        int[] tokens = MiniGolden.tokens("s040");
        Decoder decoder = MiniGolden.deq().decoder(tokens.length, ForwardOptions.DEFAULT);
        decoder.prefill(tokens);
        assertThat(MiniGolden.relativeError(decoder.keys().asDoubles(),
                MiniGolden.array("decode.npz", "kcache.s040.deq").asDoubles())).as("kcache.s040.deq")
                .isLessThan(ForwardGoldenTest.TOLERANCE);
        assertThat(MiniGolden.relativeError(decoder.values().asDoubles(),
                MiniGolden.array("decode.npz", "vcache.s040.deq").asDoubles())).as("vcache.s040.deq")
                .isLessThan(ForwardGoldenTest.TOLERANCE);
        assertThat(decoder.keys().shape()).containsExactly(6, 2, 40, 32);
    }

    /** decode.json generate_cached: upstream's greedy continuation (margins >= 0.69, so argmax is stable). */
    @ParameterizedTest
    @ValueSource(ints = {0, 16})
    void greedyGenerationMatches(int window) {
        JsonNode run = Golden.json(Golden.mini("decode.json")).get("generate_cached").get("deq.kv" + window);
        int[] prompt = ints(run.get("prompt_ids"));
        int[] expected = ints(run.get("generated_ids"));
        // upstream's max_len = min(max_seq_len, prompt + max_new_tokens) and no sinks (_doc_prefix_len is 0)
        Decoder decoder = MiniGolden.deq().decoder(prompt.length + expected.length, options(window, 0));
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
        double[] cached = MiniGolden.flat(stepwise(tokens, 5, ForwardOptions.DEFAULT));
        // only the grouping of rows into dgemm calls differs: a few ulps
        assertThat(MiniGolden.relativeError(cached, full)).isLessThan(1e-12);
    }

    static double[][] stepwise(int[] tokens, int prefill, ForwardOptions o) {
        Decoder decoder = MiniGolden.deq().decoder(tokens.length, o);
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
