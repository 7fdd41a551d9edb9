package dev.needlewb.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.engine.kernel.NumericMode;
import dev.needlewb.golden.Golden;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Tag("width")
class GoldenLogitsTest {
    static int[] tokens(String seq) {
        JsonNode t = Golden.json(Golden.mini("sequences.json")).get(seq).get("tokens");
        int[] out = new int[t.size()];
        for (int i = 0; i < out.length; i++) out[i] = t.get(i).asInt();
        return out;
    }

    static double[] golden(String key) {
        return Golden.array(Golden.mini("forward.npz"), key).asDoubles();
    }

    static Path cact() {
        return Golden.mini("mini.cact");
    }

    @ParameterizedTest
    @ValueSource(strings = {"s001", "s007", "s040", "s300"})
    void exactModeMatchesTheFloat64ReferenceOnDequantizedWeights(String seq) throws Exception {
        int[] tokens = tokens(seq);
        double[] want = golden("logits." + seq + ".deq.q0");
        int vocab = 512;
        // No window and room for all 300 positions: the golden forward is a plain causal pass
        // (upstream's max_seq_len only sizes its RoPE table, which it builds for T positions).
        try (Engine e = Engine.open(cact(), EngineOptions.exact(tokens.length))) {
            Session s = e.newSession();
            double worst = 0;
            for (int t = 0; t < tokens.length; t++) {
                float[] logits = s.step(tokens[t]);
                double maxAbs = 0;
                for (int i = 0; i < vocab; i++) maxAbs = Math.max(maxAbs, Math.abs(want[t * vocab + i]));
                for (int i = 0; i < vocab; i++) {
                    worst = Math.max(worst, Math.abs(logits[i] - want[t * vocab + i]) / maxAbs);
                }
            }
            // float32 through 6 layers against float64: measured 1.5e-7 (s001) .. 4.1e-7 (s300) of
            // the row's largest logit, as the golden README expects (3e-7..1e-6). The gate, 2e-6, is
            // 5x the worst measured and 50x tighter than the 1e-4 float32 budget.
            assertThat(worst).as("worst |diff| / max|logit| over %s", seq).isLessThan(2e-6);
        }
    }

    /** Upstream's step-by-step cached decode with a sliding window (and sinks), on the dequantized weights. */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"s040, stepwise_w16s3.s040.deq, 16, 3", "s300, stepwise_w256.s300.deq, 256, 0"})
    void windowAndSinksMatchTheWindowedDecode(String seq, String key, int window, int sinks) throws Exception {
        int[] tokens = tokens(seq);
        double[] want = Golden.array(Golden.mini("decode.npz"), key).asDoubles();
        try (Engine e = Engine.open(cact(), EngineOptions.exact(tokens.length).withWindow(window, sinks))) {
            Session s = e.newSession();
            double worst = 0;
            for (int t = 0; t < tokens.length; t++) {
                float[] logits = s.step(tokens[t]);
                double maxAbs = 0;
                for (int i = 0; i < 512; i++) maxAbs = Math.max(maxAbs, Math.abs(want[t * 512 + i]));
                for (int i = 0; i < 512; i++) worst = Math.max(worst, Math.abs(logits[i] - want[t * 512 + i]) / maxAbs);
            }
            // Same float32 budget as the unwindowed pass.
            assertThat(worst).isLessThan(2e-6);
        }
    }
}
