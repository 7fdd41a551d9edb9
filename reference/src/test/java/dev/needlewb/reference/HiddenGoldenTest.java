package dev.needlewb.reference;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Golden item d: hidden.npz (sequence s040, deq params). Tolerance as in {@link ForwardGoldenTest}. */
class HiddenGoldenTest {
    private static final int[] S040 = MiniGolden.tokens("s040");

    @Test
    void hiddenStatesMatch() {
        double[][][] states = MiniGolden.deq().hiddenStates(S040, ForwardOptions.DEFAULT);
        assertThat(MiniGolden.relativeError(MiniGolden.flat(states),
                MiniGolden.array("hidden.npz", "hidden_states.s040.deq").asDoubles()))
                .as("hidden_states.s040.deq").isLessThan(ForwardGoldenTest.TOLERANCE);
    }

    @Test
    void hiddenCellsWithoutWindowMatch() {
        double[][][] cells = MiniGolden.deq().hiddenCells(S040, ForwardOptions.DEFAULT);
        assertThat(MiniGolden.relativeError(MiniGolden.flat(cells),
                MiniGolden.array("hidden.npz", "hidden_cells.s040.deq.w0").asDoubles()))
                .as("hidden_cells.s040.deq.w0").isLessThan(ForwardGoldenTest.TOLERANCE);
    }

    @Test
    void hiddenCellsWithWindow16AndThreeSinksMatch() {
        double[][][] cells = MiniGolden.deq().hiddenCells(S040, ForwardOptions.DEFAULT.withWindow(16, 3));
        assertThat(MiniGolden.relativeError(MiniGolden.flat(cells),
                MiniGolden.array("hidden.npz", "hidden_cells.s040.deq.w16s3").asDoubles()))
                .as("hidden_cells.s040.deq.w16s3").isLessThan(ForwardGoldenTest.TOLERANCE);
    }
}
