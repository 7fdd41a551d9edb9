package dev.needlewb.reference.v3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.reference.MiniGolden;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * decode.npz: upstream {@code run.generate} on prompt s040[:8] (greedy, 12 new tokens) and the
 * logits of each prefix of its 20-token result (upstream reruns the whole buffer; this runs the
 * cached decoder: one prefill of the prompt, then one step per token).
 */
class V3DecodeGoldenTest {
    /**
     * The cached path repeats the full forward's arithmetic row by row, except that single-row
     * products use float-weight dot products instead of BLAS dgemm (another summation order): a
     * few ulps. 1e-12 holds that to 3-4 orders above the noise, far below any cache mistake (a
     * missed conv tap, window key or engram position moves logits by 1e-3 or more).
     */
    static final double TOLERANCE = 1e-12;

    @ParameterizedTest
    @ValueSource(strings = {"raw", "deq"})
    void stepwiseLogitsMatch(String p) {
        int[] tokens = V3Golden.array("decode.npz", "generate.s040." + p + ".tokens").asInts();
        double[][] stepwise = stepwise(V3Golden.model(p), tokens, 8);
        String item = "stepwise.s040." + p + ".q0";
        double[][] rows = Arrays.copyOfRange(stepwise, 7, tokens.length);
        assertThat(MiniGolden.relativeError(MiniGolden.flat(rows), V3Golden.array("decode.npz", item).asDoubles()))
                .as(item).isLessThan(TOLERANCE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"raw", "deq"})
    void greedyGenerationMatches(String p) {
        int[] prompt = Arrays.copyOf(V3Golden.tokens("s040"), 8);
        int[] expected = V3Golden.array("decode.npz", "generate.s040." + p + ".ids").asInts();
        assertThat(V3Golden.model(p).generate(prompt, 12, V3Options.DEFAULT)).containsExactly(expected);
    }

    /**
     * Longer than the mini's window (16) and conv reach: every decode step of s040 against the full
     * forward of the same 40 tokens, in q0 and in quant mode (the same per-position rounding, so
     * the same decisions), and from several prefill lengths.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 5, 17, 39})
    void cachedAndFullSequencePathsAgree(int prefill) {
        int[] tokens = V3Golden.tokens("s040");
        for (V3Options o : new V3Options[] {V3Options.DEFAULT, V3Options.DEPLOY}) {
            double[] full = MiniGolden.flat(V3Golden.model("deq").forward(tokens, o));
            double[] cached = MiniGolden.flat(stepwise(V3Golden.model("deq"), tokens, prefill, o));
            assertThat(MiniGolden.relativeError(cached, full)).as("prefill %d, quant %s", prefill, o.quant()).isLessThan(TOLERANCE);
        }
    }

    @Test
    void appendingSeveralTokensAtOnceIsTheSameAsSteppingThem() {
        int[] tokens = V3Golden.tokens("s040");
        V3Decoder decoder = V3Golden.model("raw").decoder(tokens.length, V3Options.DEFAULT);
        double[][] a = decoder.prefill(Arrays.copyOf(tokens, 10));
        double[][] b = decoder.append(Arrays.copyOfRange(tokens, 10, 30));
        double[][] c = decoder.append(Arrays.copyOfRange(tokens, 30, 40));
        double[][] joined = new double[40][];
        System.arraycopy(a, 0, joined, 0, 10);
        System.arraycopy(b, 0, joined, 10, 20);
        System.arraycopy(c, 0, joined, 30, 10);
        double[] full = MiniGolden.flat(V3Golden.model("raw").forward(tokens, V3Options.DEFAULT));
        assertThat(MiniGolden.relativeError(MiniGolden.flat(joined), full)).isLessThan(TOLERANCE);
        assertThat(decoder.length()).isEqualTo(40);
    }

    static double[][] stepwise(V3Model model, int[] tokens, int prefill) {
        return stepwise(model, tokens, prefill, V3Options.DEFAULT);
    }

    static double[][] stepwise(V3Model model, int[] tokens, int prefill, V3Options o) {
        V3Decoder decoder = model.decoder(tokens.length, o);
        double[][] out = new double[tokens.length][];
        double[][] first = decoder.prefill(Arrays.copyOf(tokens, prefill));
        System.arraycopy(first, 0, out, 0, prefill);
        for (int t = prefill; t < tokens.length; t++) out[t] = decoder.step(tokens[t]);
        return out;
    }
}
