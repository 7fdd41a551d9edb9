package dev.needlewb.converter.cq.codebook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.needlewb.golden.Golden;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Every comparison here is exact (bit for bit): the codebooks must equal upstream's. */
class CodebooksTest {
    private static final Path CODEBOOKS = Golden.common("codebooks.npz");

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4})
    void lloydMaxCentresEqualUpstreamFloat64(int bits) {
        assertThat(LloydMax.centres(bits)).containsExactly(Golden.array(CODEBOOKS, "lloyd.b" + bits).asDoubles());
    }

    @Test
    void ternaryCentresEqualUpstream() {
        assertThat(Codebooks.unitCentres(Codebooks.TERNARY_RECORD_BITS))
                .containsExactly(Golden.array(CODEBOOKS, "lloyd.ternary").asDoubles());
    }

    @ParameterizedTest
    @CsvSource({"2, b2", "3, b3", "4, b4", "5, ternary"})
    void float32CodebooksEqualUpstreamAtBothGroupSizes(int recordBits, String key) {
        for (int group : new int[] {64, 128}) {
            float[] expected = Golden.array(CODEBOOKS, "cb." + key + ".g" + group).asFloats();
            assertThat(Codebooks.of(recordBits, group)).as("cb.%s.g%d", key, group).containsExactly(expected);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4})
    void float32CodebookIsTheFloat64DivisionRounded(int bits) {
        for (int group : new int[] {64, 128}) {
            double[] wide = Golden.array(CODEBOOKS, "cb64.b" + bits + ".g" + group).asDoubles();
            float[] cb = Codebooks.of(bits, group);
            for (int k = 0; k < cb.length; k++) assertThat(cb[k]).isEqualTo((float) wide[k]);
        }
    }

    @Test
    void headerCodebookEqualsUpstreamAndTheReleasedCq2Values() {
        float[] header = Codebooks.headerCodebook(128);
        assertThat(header).containsExactly(Golden.array(CODEBOOKS, "header_codebook.g128").asFloats());
        // SPEC section 4: the CQ2 entries of the released needle .cact header.
        assertThat(header).startsWith(
                (float) -0.1331721395254135, (float) -0.03990209102630615,
                (float) 0.04003528133034706, (float) 0.13346044719219208);
    }

    @Test
    void refusesUnknownBitsAndGroups() {
        assertThatThrownBy(() -> Codebooks.of(1, 128)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Codebooks.of(2, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
