package dev.needlewb.reference.v3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.reference.MiniGolden;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** hidden.npz: {@code hidden_states} [L, T, d] and {@code hidden_cells} [T, L+1, d] (q0), raw and deq. */
class V3HiddenGoldenTest {
    @ParameterizedTest
    @CsvSource({"s001,raw", "s007,raw", "s040,raw", "s001,deq", "s007,deq", "s040,deq"})
    void hiddenStatesMatch(String seq, String p) {
        double[][][] hidden = V3Golden.model(p).hiddenStates(V3Golden.tokens(seq), V3Options.DEFAULT);
        String item = "hidden_states." + seq + "." + p;
        assertThat(MiniGolden.relativeError(MiniGolden.flat(hidden), V3Golden.array("hidden.npz", item).asDoubles()))
                .as(item).isLessThan(V3ForwardGoldenTest.TOLERANCE);
    }

    @ParameterizedTest
    @CsvSource({"s001,raw", "s007,raw", "s040,raw", "s001,deq", "s007,deq", "s040,deq"})
    void hiddenCellsMatch(String seq, String p) {
        double[][][] cells = V3Golden.model(p).hiddenCells(V3Golden.tokens(seq), V3Options.DEFAULT);
        String item = "hidden_cells." + seq + "." + p + ".q0";
        assertThat(cells[0].length).isEqualTo(5);
        assertThat(MiniGolden.relativeError(MiniGolden.flat(cells), V3Golden.array("hidden.npz", item).asDoubles()))
                .as(item).isLessThan(V3ForwardGoldenTest.TOLERANCE);
    }
}
