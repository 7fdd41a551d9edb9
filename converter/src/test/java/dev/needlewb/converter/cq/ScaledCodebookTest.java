package dev.needlewb.converter.cq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.cq.codebook.Codebooks;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The vector lookup against the scalar expression {@code codebook[code] * norm}, bit for bit (both are
 * one float32 product), for every codebook size (ternary's 3 entries to 4-bit's 16: one vector, or
 * more than one at narrow widths) and runs with and without a tail.
 */
@Tag("width")
@Tag("kernel")
class ScaledCodebookTest {

    @ParameterizedTest(name = "record bits {0}, {1} codes from {2}")
    @CsvSource({"2, 128, 0", "3, 128, 0", "4, 128, 0", "5, 128, 0", "4, 64, 64", "3, 100, 7", "2, 5, 3", "4, 1, 0"})
    void lookupIsTheScaledEntryOfEveryCode(int recordBits, int n, int from) {
        float[] codebook = Codebooks.of(recordBits, 128);
        SplittableRandom random = new SplittableRandom(recordBits * 1000L + n);
        byte[] codes = new byte[from + n];
        for (int i = 0; i < codes.length; i++) codes[i] = (byte) random.nextInt(codebook.length);
        float norm = (float) (random.nextDouble() * 3);
        float[] out = new float[n + 2];
        new ScaledCodebook(codebook).lookup(codes, from, n, norm, out, 1);
        for (int k = 0; k < n; k++) {
            assertThat(Float.floatToRawIntBits(out[1 + k])).as("code %d", k)
                    .isEqualTo(Float.floatToRawIntBits(codebook[codes[from + k]] * norm));
        }
        assertThat(out[0]).isZero();
        assertThat(out[n + 1]).isZero();
    }
}
