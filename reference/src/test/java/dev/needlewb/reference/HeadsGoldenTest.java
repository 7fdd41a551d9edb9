package dev.needlewb.reference;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.WorkbenchException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Golden item f: heads.npz, the probe heads over hidden_cells (raw and deq params). */
@Tag("width")
class HeadsGoldenTest {
    @ParameterizedTest
    @CsvSource({"s001,raw,q0", "s007,raw,q0", "s040,raw,q0", "s300,raw,q0", "s001,raw,q1", "s007,raw,q1",
        "s040,raw,q1", "s300,raw,q1", "s040,raw,q0.w16s3",
        "s001,deq,q0", "s007,deq,q0", "s040,deq,q0", "s300,deq,q0", "s001,deq,q1", "s007,deq,q1",
        "s040,deq,q1", "s300,deq,q1", "s040,deq,q0.w16s3"})
    void probeHeadsMatch(String seq, String p, String variant) throws WorkbenchException {
        QuantWatch watch = new QuantWatch();
        ForwardOptions o = ForwardOptions.DEFAULT.withQuant(variant.startsWith("q1")).withWatch(watch);
        if (variant.endsWith("w16s3")) o = o.withWindow(16, 3);
        int[] tokens = MiniGolden.tokens(seq);
        String suffix = seq + "." + p + "." + variant;

        double[] contrastive = MiniGolden.model(p).contrastive(tokens, o);
        double[] expected = MiniGolden.array("heads.npz", "contrastive." + suffix).asDoubles();
        double confidence = MiniGolden.model(p).confidence(tokens, o);
        double expectedConfidence = MiniGolden.array("heads.npz", "confidence." + suffix).asDoubles()[0];

        // Pooling mixes every position, so a quantizer flip anywhere would move the whole vector:
        // allow a miss only when the watch saw a near tie (none is expected in float64 vs float64).
        double contrastiveError = MiniGolden.relativeError(contrastive, expected);
        double confidenceError = Math.abs(confidence - expectedConfidence) / Math.abs(expectedConfidence);
        if (watch.ties().isEmpty()) {
            assertThat(contrastiveError).as("contrastive.%s", suffix).isLessThan(ForwardGoldenTest.TOLERANCE);
            assertThat(confidenceError).as("confidence.%s", suffix).isLessThan(ForwardGoldenTest.TOLERANCE);
        } else if (contrastiveError > ForwardGoldenTest.TOLERANCE || confidenceError > ForwardGoldenTest.TOLERANCE) {
            System.out.println(suffix + ": heads off by " + contrastiveError + " / " + confidenceError
                    + ", explained by boundary flip candidate " + watch.ties().getFirst());
        }
        assertThat(contrastive.length).isEqualTo(MiniGolden.model(p).contrastiveDim());
    }
}
