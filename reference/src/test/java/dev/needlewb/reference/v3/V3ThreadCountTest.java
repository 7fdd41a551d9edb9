package dev.needlewb.reference.v3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.reference.MiniGolden;
import java.util.concurrent.Callable;
import java.util.concurrent.ForkJoinPool;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Work is split into fixed 32-row chunks (also the rows of the Kronecker products, count x 8 of
 * them here) that depend on the row count alone and write disjoint rows, run on whatever fork-join
 * pool the caller runs in: the outputs must be the same bits on one thread as on four. 120 tokens
 * (s040 three times) give four chunks of positions, the last one partial.
 */
class V3ThreadCountTest {
    private static final int[] TOKENS = repeat(V3Golden.tokens("s040"), 3);

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void oneThreadAndFourThreadsGiveTheSameBits(boolean quant) throws Exception {
        V3Model model = V3Golden.model("deq");
        V3Options o = V3Options.DEFAULT.withQuant(quant);
        Callable<double[]> run = () -> {
            double[] logits = MiniGolden.flat(model.forward(TOKENS, o));
            double[] cells = MiniGolden.flat(model.hiddenCells(TOKENS, o));
            double confidence = model.confidence(TOKENS, o);
            double[] all = java.util.Arrays.copyOf(logits, logits.length + cells.length + 1);
            System.arraycopy(cells, 0, all, logits.length, cells.length);
            all[all.length - 1] = confidence;
            return all;
        };
        double[] one = in(new ForkJoinPool(1), run);
        double[] four = in(new ForkJoinPool(4), run);
        assertThat(one.length).isEqualTo(TOKENS.length * 512 + TOKENS.length * 5 * 128 + 1);
        assertThat(java.util.Arrays.mismatch(one, four)).as("first differing value").isEqualTo(-1);
    }

    private static double[] in(ForkJoinPool pool, Callable<double[]> task) throws Exception {
        try {
            return pool.submit(task).get();
        } finally {
            pool.shutdown();
        }
    }

    private static int[] repeat(int[] t, int times) {
        int[] out = new int[t.length * times];
        for (int i = 0; i < times; i++) System.arraycopy(t, 0, out, i * t.length, t.length);
        return out;
    }
}
