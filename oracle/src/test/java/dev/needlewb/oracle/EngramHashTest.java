package dev.needlewb.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EngramHashTest {
    private static final int[] MINI_ORDERS = {2, 3};

    @Test
    void everyGoldenSequenceHashesToUpstreamSlots() {
        JsonNode sequences = GoldenData.json("mini/sequences.json");
        Map<String, GoldenData.Array> golden = GoldenData.npz("mini/engram.npz");
        assertThat(sequences.size()).isEqualTo(4);
        for (var entry : sequences.properties()) {
            int[] tokens = tokens(entry.getValue());
            GoldenData.Array expected = golden.get("idx." + entry.getKey());
            assertThat(expected.shape()).containsExactly(tokens.length, 2);
            int[][] idx = EngramHash.indices(tokens, MINI_ORDERS, 1, 256);
            int[] flat = new int[tokens.length * 2];
            for (int t = 0; t < tokens.length; t++) System.arraycopy(idx[t], 0, flat, 2 * t, 2);
            assertThat(flat).as(entry.getKey()).containsExactly(expected.ints());
        }
    }

    @Test
    void deliberateCollisionsInS040ShareTheirSlot() {
        JsonNode s040 = GoldenData.json("mini/sequences.json").get("s040");
        int[] tokens = tokens(s040);
        int[][] idx = EngramHash.indices(tokens, MINI_ORDERS, 1, 256);
        JsonNode collisions = s040.get("engram_collisions");
        assertThat(collisions.size()).isPositive();
        for (JsonNode c : collisions) {
            int table = c.get("table").asInt(), order = c.get("order").asInt(), slot = c.get("slot").asInt();
            assertThat(c.get("ngrams").size()).as("distinct n-grams sharing a slot").isGreaterThanOrEqualTo(2);
            for (var ngram : c.get("ngrams").properties()) {
                for (JsonNode pos : ngram.getValue()) {
                    int p = pos.asInt();
                    StringBuilder text = new StringBuilder();
                    for (int k = p - order + 1; k <= p; k++) text.append(k == p - order + 1 ? "" : " ").append(tokens[k]);
                    assertThat(text.toString()).isEqualTo(ngram.getKey());
                    assertThat(idx[p][table]).as("table %d position %d", table, p).isEqualTo(slot);
                }
            }
        }
    }

    @Test
    void headsEnterTheSeedAsOrderIndexTimesHeadsPlusHead() {
        // Expected values from upstream's engram_indices expression evaluated with numpy uint32 for
        // the Needle 2 geometry (orders (2, 3), 2 heads per order, 8192 slots).
        int[] tokens = {2, 8000, 17, 4095, 8191, 123456789};
        int[][] expected = {{8135, 6202, 7636, 1872}, {6528, 441, 3837, 5179}, {7243, 5386, 7149, 1770},
                {3656, 2791, 2606, 2328}, {4482, 2646, 6647, 441}, {976, 6232, 6601, 974}};
        assertThat(EngramHash.indices(tokens, MINI_ORDERS, 2, 8192)).isDeepEqualTo(expected);
        assertThat(EngramHash.slot(tokens, 5, 1, 3, 1, 2, 8192)).isEqualTo(974);
    }

    @Test
    void refusesNegativeTokensAndBadGeometry() {
        assertThatThrownBy(() -> EngramHash.slot(new int[] {5, -1}, 1, 0, 2, 0, 1, 256))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("position 1");
        assertThatThrownBy(() -> EngramHash.slot(new int[] {5}, 0, 0, 2, 1, 1, 256))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static int[] tokens(JsonNode sequence) {
        JsonNode t = sequence.get("tokens");
        int[] out = new int[t.size()];
        for (int i = 0; i < out.length; i++) out[i] = t.get(i).asInt();
        return out;
    }
}
