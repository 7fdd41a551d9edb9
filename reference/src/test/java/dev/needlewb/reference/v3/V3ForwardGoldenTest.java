package dev.needlewb.reference.v3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.reference.MiniGolden;
import dev.needlewb.reference.QuantWatch;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** forward.npz: full-sequence logits of upstream Needle 3 {@code SimpleAttentionNetwork.apply}, raw and deq. */
class V3ForwardGoldenTest {
    /**
     * Float64 against float64: only summation orders differ (BLAS blocking, the Kronecker factors
     * applied as two batched products instead of an einsum), a few 1e-16 relative; 1e-9 leaves room
     * for growth through 4 layers and catches any modelling mistake (those are 1e-4 or more; even a
     * float32 RoPE table alone is 6.6e-8).
     */
    static final double TOLERANCE = 1e-9;

    @ParameterizedTest
    @CsvSource({"s001,raw", "s007,raw", "s040,raw", "s001,deq", "s007,deq", "s040,deq"})
    void quantOffMatches(String seq, String p) {
        double[][] logits = V3Golden.model(p).forward(V3Golden.tokens(seq), V3Options.DEFAULT);
        String item = "logits." + seq + "." + p + ".q0";
        double err = MiniGolden.relativeError(MiniGolden.flat(logits), V3Golden.array("forward.npz", item).asDoubles());
        assertThat(err).as("%s relative error", item).isLessThan(TOLERANCE);
    }

    /**
     * quant=True with the deploy settings (q1: A8 activations, A8 Q, K and V) and with kv_bits 0
     * (q1kv0: K and V unrounded, Q still A8). Rounding is discontinuous, so two float64
     * implementations agree only if no int8 code or codebook choice sits within their summation
     * noise of a boundary. The watch counts every decision within 1e-9 (relative) of one: there is
     * none in any of these 12 items, so no decision can have flipped, and the logits are held to
     * the q0 tolerance and their argmax to exact agreement. A future near tie makes this fail loudly
     * with the decision named, rather than being waved through.
     */
    @ParameterizedTest
    @CsvSource({"s001,raw,q1", "s007,raw,q1", "s040,raw,q1", "s001,deq,q1", "s007,deq,q1", "s040,deq,q1",
        "s001,raw,q1kv0", "s007,raw,q1kv0", "s040,raw,q1kv0", "s001,deq,q1kv0", "s007,deq,q1kv0", "s040,deq,q1kv0"})
    void quantOnMatchesWithNoDecisionNearABoundary(String seq, String p, String variant) {
        QuantWatch watch = new QuantWatch();
        double[][] logits = V3Golden.model(p).forward(V3Golden.tokens(seq), deploy(variant).withWatch(watch));
        String item = "logits." + seq + "." + p + "." + variant;
        double[] expected = V3Golden.array("forward.npz", item).asDoubles();
        assertThat(watch.ties()).as("%s rounding decisions within 1e-9 of a boundary", item).isEmpty();
        assertThat(MiniGolden.relativeError(MiniGolden.flat(logits), expected)).as("%s relative error", item).isLessThan(TOLERANCE);
        assertThat(argmaxes(logits)).as("%s argmax per position", item).isEqualTo(argmaxes(expected, logits[0].length));
    }

    static V3Options deploy(String variant) {
        return switch (variant) {
            case "q0" -> V3Options.DEFAULT;
            case "q1" -> V3Options.DEPLOY;
            case "q1kv0" -> V3Options.DEPLOY.withKvBits(0);
            default -> throw new IllegalArgumentException(variant);
        };
    }

    private static List<Integer> argmaxes(double[][] rows) {
        List<Integer> out = new ArrayList<>();
        for (double[] row : rows) out.add(V3Model.argmax(row));
        return out;
    }

    private static List<Integer> argmaxes(double[] flat, int width) {
        List<Integer> out = new ArrayList<>();
        for (int r = 0; r < flat.length / width; r++) out.add(V3Model.argmax(java.util.Arrays.copyOfRange(flat, r * width, (r + 1) * width)));
        return out;
    }
}
