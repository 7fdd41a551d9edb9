package dev.needlewb.engine.layer;

import dev.needlewb.core.model.EngramHash;
import dev.needlewb.engine.cache.TokenHistory;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.golden.Golden;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EngramHashTest {
    @ParameterizedTest
    @ValueSource(strings = {"s001", "s007", "s040", "s300"})
    void slotsMatchUpstreamEngramIndices(String seq) {
        var tokens = Golden.json(Golden.mini("sequences.json")).get(seq).get("tokens");
        double[] want = Golden.array(Golden.mini("engram.npz"), "idx." + seq).asDoubles();
        TokenHistory history = new TokenHistory(3);
        int[] orders = {2, 3};
        for (int pos = 0; pos < tokens.size(); pos++) {
            history.push(pos, tokens.get(pos).asInt());
            for (int t = 0; t < 2; t++) {
                // Integer hash: exact equality, including positions whose n-gram reaches before the start.
                assertThat(EngramHash.slot(history::at, pos, orders[t], t, 256)).as("pos %d table %d", pos, t).isEqualTo((int) want[pos * 2 + t]);
            }
        }
    }
}
