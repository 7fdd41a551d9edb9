package dev.needlewb.reference;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Golden item d: hidden.npz (sequence s040, raw and deq params). Tolerance as in {@link ForwardGoldenTest}. */
@Tag("width")
class HiddenGoldenTest {
    private static final int[] S040 = MiniGolden.tokens("s040");

    @ParameterizedTest
    @ValueSource(strings = {"raw", "deq"})
    void hiddenStatesMatch(String p) {
        double[][][] states = MiniGolden.model(p).hiddenStates(S040, ForwardOptions.DEFAULT);
        assertThat(MiniGolden.relativeError(MiniGolden.flat(states),
                MiniGolden.array("hidden.npz", "hidden_states.s040." + p).asDoubles()))
                .as("hidden_states.s040." + p).isLessThan(ForwardGoldenTest.TOLERANCE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"raw", "deq"})
    void hiddenCellsWithoutWindowMatch(String p) {
        double[][][] cells = MiniGolden.model(p).hiddenCells(S040, ForwardOptions.DEFAULT);
        assertThat(MiniGolden.relativeError(MiniGolden.flat(cells),
                MiniGolden.array("hidden.npz", "hidden_cells.s040." + p + ".w0").asDoubles()))
                .as("hidden_cells.s040." + p + ".w0").isLessThan(ForwardGoldenTest.TOLERANCE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"raw", "deq"})
    void hiddenCellsWithWindow16AndThreeSinksMatch(String p) {
        double[][][] cells = MiniGolden.model(p).hiddenCells(S040, ForwardOptions.DEFAULT.withWindow(16, 3));
        assertThat(MiniGolden.relativeError(MiniGolden.flat(cells),
                MiniGolden.array("hidden.npz", "hidden_cells.s040." + p + ".w16s3").asDoubles()))
                .as("hidden_cells.s040." + p + ".w16s3").isLessThan(ForwardGoldenTest.TOLERANCE);
    }
}
