package dev.needlewb.reference;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ForwardGoldenTest {
    @ParameterizedTest
    @ValueSource(strings = {"s001", "s007", "s040", "s300"})
    void deqQuantOffMatchesForwardNpz(String seq) {
        double[][] logits = MiniGolden.deq().forward(MiniGolden.tokens(seq), ForwardOptions.DEFAULT);
        double err = MiniGolden.relativeError(MiniGolden.flat(logits),
                MiniGolden.array("forward.npz", "logits." + seq + ".deq.q0").asDoubles());
        System.out.println(seq + " deq q0 rel err " + err);
        assertThat(err).isLessThan(1e-9);
    }
}
