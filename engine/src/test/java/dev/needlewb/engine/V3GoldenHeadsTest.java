package dev.needlewb.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.golden.Golden;
import dev.needlewb.engine.probe.ProbeOutputs;
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
        System.out.printf("%s exact %.3e batch %.3e int8 %.3e (q0 %.6f q1 %.6f)%n", seq, Math.abs(exact - q0), Math.abs(batch - q0),
                Math.abs(int8 - q1), q0, q1);
        assertThat(Math.abs(exact - q0)).isLessThan(1e-6);
        assertThat(Math.abs(batch - q0)).isLessThan(1e-6);
        assertThat(Math.abs(int8 - q1)).isLessThan(0.05);
    }

    private static double confidence(EngineOptions options, int[] tokens, boolean batch) throws Exception {
        try (Engine e = Engine.open(Golden.v3mini("mini3.cact"), options)) {
            Session s = e.newSession().poolingProbeCells();
            if (batch) {
                try (BatchPrefill b = BatchPrefill.open(e)) {
                    b.prefill(s, tokens);
                }
            } else {
                s.prefill(tokens);
            }
            ProbeOutputs out = s.probeHeads();
            return out.confidenceLogit();
        }
    }
}
