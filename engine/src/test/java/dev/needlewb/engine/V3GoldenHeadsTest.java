package dev.needlewb.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.golden.Golden;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The engine's confidence head on upstream's Needle 3 mini file (golden v3mini/mini3.cact: 4 probes, 4 queries
 * over 5 cell rows) against upstream's {@code forward_confidence} on the file's dequantized weights
 * ({@code heads.npz}): exact mode against quant=False ({@code deq.q0}), int8 against its deploy quant=True
 * ({@code deq.q1}), pooled token by token and in a batch prefill.
 */
@Tag("width")
class V3GoldenHeadsTest {

    @ParameterizedTest
    @ValueSource(strings = {"s001", "s007", "s040"})
    void confidenceMatchesUpstream(String seq) throws Exception {
        int[] tokens = V3GoldenLogitsTest.tokens(seq);
        double q0 = Golden.array(Golden.v3mini("heads.npz"), "confidence." + seq + ".deq.q0").asDoubles()[0];
        double q1 = Golden.array(Golden.v3mini("heads.npz"), "confidence." + seq + ".deq.q1").asDoubles()[0];
        double exact = confidence(EngineOptions.exact(tokens.length), tokens, false);
        double batch = confidence(EngineOptions.exact(tokens.length), tokens, true);
        double int8 = confidence(EngineOptions.exact(tokens.length).withMode(dev.needlewb.engine.kernel.NumericMode.INT8), tokens, false);
        // float32 cells and products against float64: measured 2.1e-8..1.5e-7 (token by token), 4e-9..2.1e-8 (batch).
        assertThat(Math.abs(exact - q0)).as("exact").isLessThan(2e-6);
        assertThat(Math.abs(batch - q0)).as("batch").isLessThan(2e-6);
        // int8 cells, K/V and head products against upstream's A8 deploy run (which also CQ-4 re-quantizes the head's stored
        // probes, queries and projection): measured 2.8e-3..6.3e-3, about twice the q0/q1 gap itself (2.3e-3..3.3e-3).
        assertThat(Math.abs(int8 - q1)).as("int8").isLessThan(0.02);
    }

    private static double confidence(EngineOptions options, int[] tokens, boolean batch) throws Exception {
        try (Engine e = Engine.open(Golden.v3mini("mini3.cact"), options); BatchPrefill b = batch ? BatchPrefill.open(e) : null) {
            return e.probeHeads(tokens, b != null ? b : Prefill.NATIVE).confidenceLogit();
        }
    }
}
