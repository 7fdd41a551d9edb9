package dev.needlewb.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.engine.kernel.NumericMode;
import dev.needlewb.golden.Golden;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The batch prefill on the golden Needle 3 file: the same Forward over the prompt's 40 positions at once (past the
 * 16-position window, through the QKV conv), on dense float32 weights, against upstream's float64 logits; native
 * decoding continues from it as it does from a native prefill (the conv history, the per-window caches, the
 * engram rings handed over).
 */
@Tag("width")
class V3BatchPrefillTest {
    @ParameterizedTest
    @EnumSource(NumericMode.class)
    void batchPrefillMatchesUpstreamAndDecodingContinuesAsAfterNativePrefill(NumericMode mode) throws Exception {
        int[] tokens = V3GoldenLogitsTest.tokens("s040");
        double[] want = Golden.array(Golden.v3mini("forward.npz"), "logits.s040.deq.q0").asDoubles();
        EngineOptions options = EngineOptions.exact(tokens.length + 12).withMode(mode);
        try (Engine e = Engine.open(Golden.v3mini("mini3.cact"), options); BatchPrefill batch = BatchPrefill.open(e)) {
            int vocab = e.geometry().outVocab();
            Session batched = e.newSession(), stepped = e.newSession();
            float[] all = batch.prefillAllLogits(batched, tokens);
            float[] native_ = stepped.prefill(tokens);
            double worst = 0;
            for (int t = 0; t < tokens.length; t++) {
                worst = Math.max(worst, V3GoldenLogitsTest.rowError(java.util.Arrays.copyOfRange(all, t * vocab, (t + 1) * vocab), want, t, vocab));
            }
            // The batch path is float32 whatever the mode (as for Needle 2): held to the golden like exact mode.
            assertThat(worst).isLessThan(V3GoldenLogitsTest.TOLERANCE);
            float[] last = java.util.Arrays.copyOfRange(all, (tokens.length - 1) * vocab, tokens.length * vocab);
            assertThat(batched.position()).isEqualTo(stepped.position()).isEqualTo(tokens.length);
            double drift = relative(last, native_);
            // After the prompt each session decodes natively in its own mode; the two differ only by what each prefill
            // left in the caches (float32 summation order; in int8, K/V codes near a rounding boundary).
            double gate = mode == NumericMode.EXACT ? 2e-6 : 0.05;
            assertThat(drift).isLessThan(gate);
            int a = V3GoldenLogitsTest.argmax(last), b = V3GoldenLogitsTest.argmax(native_);
            for (int i = 0; i < 12; i++) {
                float[] x = batched.step(a).clone(), y = stepped.step(a);
                assertThat(relative(x, y)).as("step %d", i).isLessThan(gate);
                a = V3GoldenLogitsTest.argmax(x);
            }
        }
    }

    private static double relative(float[] x, float[] y) {
        double maxAbs = 0, worst = 0;
        for (float v : y) maxAbs = Math.max(maxAbs, Math.abs(v));
        for (int i = 0; i < x.length; i++) worst = Math.max(worst, Math.abs(x[i] - y[i]) / maxAbs);
        return worst;
    }
}
