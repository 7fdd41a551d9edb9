package dev.needlewb.converter.cq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.simd.VectorWidth;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The quantizer's codes and norms are the same bits at every vector width: every surefire execution (the
 * machine's width, MaxVectorSize 16 and 32, 512 bits forced) must reproduce one SHA-256 digest over groups
 * 8 to 32 at every record width. (The idempotence study's digest over groups 64 and 128 lives with the
 * study, in the reports module.)
 */
@Tag("width")
@Tag("kernel")
class WidthInvariantOutputsTest {
    private static final String SMALL_GROUPS_DIGEST = "f96c81eb0d79a73209bd7a25eae3009b8973a54b3a6b5d9d2227bbc473fea371";

    /** Groups 8 to 32, which only the quantizer takes: at 512 bits group 8 is narrower than one store of codes. */
    @Test
    void smallGroupsQuantizeToTheSameBitsAtEveryWidth() throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        SplittableRandom random = new SplittableRandom(8);
        for (int group : new int[] {8, 16, 32}) {
            int rows = 5;
            int cols = 7 * group - 3;
            float[] w = new float[rows * cols];
            for (int i = 0; i < w.length; i++) w[i] = (float) (random.nextGaussian() * 0.02);
            for (int bits : new int[] {2, 3, 4, 5}) {
                CqCodes q = CqQuantizer.of(bits, group).quantize("random", w, rows, cols);
                sha.update(q.codes());
                ByteBuffer b = ByteBuffer.allocate(q.norms().length * Short.BYTES).order(ByteOrder.LITTLE_ENDIAN);
                for (short s : q.norms()) b.putShort(s);
                sha.update(b.array());
            }
        }
        assertThat(HexFormat.of().formatHex(sha.digest())).as(VectorWidth.describe()).isEqualTo(SMALL_GROUPS_DIGEST);
    }
}
