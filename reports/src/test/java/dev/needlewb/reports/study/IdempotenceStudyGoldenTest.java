package dev.needlewb.reports.study;

import dev.needlewb.converter.cq.CqCodes;
import dev.needlewb.converter.cq.CqQuantizer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.golden.Golden;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The study's round 0 and round 1 against upstream's first re-quantization on the golden
 * matrices: round 0 dequantizes to {@code .deq} and round 1 is {@code .idx2} / {@code .norms2}
 * and dequantizes to {@code .deq2}, all bit for bit; the changed-code and changed-norm counts
 * equal {@code cq_roundtrip.json}.
 */
@Tag("width")
class IdempotenceStudyGoldenTest {
    private static final Path ROUNDTRIP = Golden.common("cq_roundtrip.npz");
    private static final int GROUP = 128;

    static List<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (String m : new String[] {"m1", "m2", "m3"}) {
            for (String b : new String[] {"2", "3", "4", "t"}) out.add(Arguments.of(m, b));
        }
        return out;
    }

    @ParameterizedTest(name = "{0}.b{1}")
    @MethodSource("cases")
    void firstRoundIsUpstreamsRequantization(String m, String b) throws WorkbenchException {
        String key = m + ".b" + b;
        NpyArray w = Golden.array(ROUNDTRIP, m + ".w");
        int rows = w.shape()[0];
        int cols = w.shape()[1];
        CqQuantizer quantizer = CqQuantizer.of(b.equals("t") ? 5 : Integer.parseInt(b), GROUP);
        IdempotenceStudy study = IdempotenceStudy.fromWeights(key, quantizer, w.asFloats(), rows, cols);

        assertThat(study.weights()).as("round 0 dequantized, bit for bit").isEqualTo(Golden.array(ROUNDTRIP, key + ".deq").asFloats());
        IdempotenceRound first = study.next();
        CqCodes state = study.state();
        int[] idx2 = Golden.array(ROUNDTRIP, key + ".idx2").asInts();
        byte[] expectedCodes = new byte[idx2.length];
        for (int i = 0; i < idx2.length; i++) expectedCodes[i] = (byte) idx2[i];
        assertThat(state.codes()).isEqualTo(expectedCodes);
        assertThat(state.norms()).isEqualTo(Golden.array(ROUNDTRIP, key + ".norms2").asHalfBits());
        assertThat(study.weights()).as("round 1 dequantized, bit for bit").isEqualTo(Golden.array(ROUNDTRIP, key + ".deq2").asFloats());

        JsonNode counts = Golden.json(Golden.common("cq_roundtrip.json")).get(key);
        assertThat(first.codesChanged()).isEqualTo(counts.get("codes_changed_on_requant").asLong());
        assertThat(first.normsChanged()).isEqualTo(counts.get("norms_changed_on_requant").asLong());
        // Ours is the exact float64 difference of two float32 weights; upstream's may be the float32
        // difference, rounded once: equal to within half a float32 ulp (2^-24 relative).
        double expectedMax = counts.get("max_abs_deq_change").asDouble();
        assertThat(first.maxAbsWeightChange()).isCloseTo(expectedMax, within(expectedMax * 0x1p-24));
    }
}
