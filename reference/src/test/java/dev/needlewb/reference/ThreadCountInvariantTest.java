package dev.needlewb.reference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.util.Arrays;
import java.util.concurrent.ForkJoinPool;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The reference splits a sequence into fixed 32-row chunks and runs them on whatever fork-join pool
 * the caller runs in. Its outputs must be the same bits on one thread as on several: the chunks
 * depend on the row count alone and write disjoint rows. {@code s300} (300 tokens, ten chunks with a
 * partial last one) is forwarded inside a one-thread pool and a four-thread pool and compared exactly.
 */
class ThreadCountInvariantTest {
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void oneThreadAndFourThreadsGiveTheSameBits(boolean quant) throws Exception {
        ReferenceModel model = MiniGolden.deq();
        int[] tokens = MiniGolden.tokens("s300");
        ForwardOptions options = ForwardOptions.DEFAULT.withQuant(quant);
        double[][] one = forwardIn(new ForkJoinPool(1), model, tokens, options);
        double[][] four = forwardIn(new ForkJoinPool(4), model, tokens, options);
        assertThat(one.length).isEqualTo(tokens.length);
        for (int t = 0; t < one.length; t++) {
            int column = Arrays.mismatch(one[t], four[t]);
            if (column >= 0) fail("logits[%d][%d]: %s on one thread, %s on four", t, column, one[t][column], four[t][column]);
        }
    }

    private static double[][] forwardIn(ForkJoinPool pool, ReferenceModel model, int[] tokens, ForwardOptions options)
            throws Exception {
        try {
            return pool.submit(() -> model.forward(tokens, options)).get();
        } finally {
            pool.shutdown();
        }
    }
}
