package dev.needlewb.reports.study;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The vector hash against its definition word by word: the codes as little-endian 64-bit words, word
 * w times {@code GOLDEN * (2w + 1)}, summed modulo 2^64 with the norm's multiple, then mixed. Exact
 * equality: integer arithmetic, so the vector width cannot change it.
 */
@Tag("width")
@Tag("kernel")
class GroupFingerprintTest {
    private static final long GOLDEN = 0x9e3779b97f4a7c15L;

    @ParameterizedTest
    @ValueSource(ints = {64, 128})
    void hashIsTheWeightedSumOfTheCodeWords(int group) {
        SplittableRandom random = new SplittableRandom(group);
        byte[] codes = new byte[3 * group];
        for (int trial = 0; trial < 200; trial++) {
            for (int i = 0; i < codes.length; i++) codes[i] = (byte) random.nextInt(16);
            short norm = (short) random.nextInt(1 << 16);
            int base = group * random.nextInt(3);
            long sum = (norm & 0xFFFF) * GOLDEN;
            for (int w = 0; w < group / Long.BYTES; w++) {
                long word = 0;
                for (int b = Long.BYTES - 1; b >= 0; b--) word = word << 8 | (codes[base + w * Long.BYTES + b] & 0xFF);
                sum += word * (GOLDEN * (2 * w + 1));
            }
            long h = (sum ^ (sum >>> 29)) * GOLDEN;
            assertThat(GroupFingerprint.of(codes, base, group, norm)).isEqualTo(h ^ (h >>> 32));
        }
    }
}
