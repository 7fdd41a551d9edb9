package dev.needlewb.reference;

import dev.needlewb.core.model.EngramHash;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.v2.Geometry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Golden item i: engram.npz, upstream engram_indices (orders 2, 3; one head; 256 slots). Exact integers. */
class EngramHashTest {
    @ParameterizedTest
    @ValueSource(strings = {"s001", "s007", "s040", "s300"})
    void slotsMatchEngramNpz(String seq) {
        Geometry g = Geometry.mini();
        int[] tokens = MiniGolden.tokens(seq);
        int[] expected = MiniGolden.array("engram.npz", "idx." + seq).asInts();
        int[] orders = g.engramOrders();
        int[] got = new int[tokens.length * orders.length];
        for (int p = 0; p < tokens.length; p++)
            for (int t = 0; t < orders.length; t++) got[p * orders.length + t] = EngramHash.slot(tokens, p, orders[t], t, g.engramSlots());
        assertThat(got).containsExactly(expected);
    }
}
