package dev.needlewb.reports.study;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.cq.CqCodes;
import dev.needlewb.converter.cq.CqQuantizer;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.simd.VectorWidth;
import dev.needlewb.golden.Golden;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The idempotence study's outputs (on the converter's CQ kernels) are the same bits at every vector width: every surefire execution (the
 * machine's width, MaxVectorSize 16 and 32, 512 bits forced) must reproduce one SHA-256 digest of
 * idempotence studies (quantize, dequantize, re-quantize for a few rounds) on the golden matrices at
 * every record width, and on two random matrices whose 13 groups per row take every numpy summation
 * order, at groups 128 and 64. The digest covers each round's codes, float16 norms, dequantized
 * weights (raw float32 bits), group fingerprints and reported statistics (raw float64 bits, among
 * them the change meter's sums of squares). Both digests were taken from the kernels as they were
 * before they became width-agnostic, at 512 bits, where their lanes already matched today's, so they
 * also pin that the port changed no bit. (Those kernels failed at class load at 128 bits, and at 256
 * bits their change meter summed 8 lanes: another study digest.)
 */
@Tag("width")
@Tag("kernel")
class WidthInvariantStudyTest {
    private static final int ROUNDS = 4;
    private static final String DIGEST = "1aeafdd7fda29708266c870ab3a33d490dc4286f4f652d164ecf065b628546a9";

    @Test
    void studiesAreTheSameBitsAtEveryWidth() throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (String m : new String[] {"m1", "m2", "m3"}) {
            NpyArray w = Golden.array(Golden.common("cq_roundtrip.npz"), m + ".w");
            for (int bits : new int[] {2, 3, 4, 5}) study(sha, m, bits, 128, w.asFloats(), w.shape()[0], w.shape()[1]);
        }
        SplittableRandom random = new SplittableRandom(12);
        for (int group : new int[] {128, 64}) {
            int rows = 6;
            int cols = 13 * group - 5;
            float[] w = new float[rows * cols];
            for (int i = 0; i < w.length; i++) w[i] = (float) (random.nextGaussian() * 0.02);
            for (int bits : new int[] {2, 4}) study(sha, "random", bits, group, w, rows, cols);
        }
        assertThat(HexFormat.of().formatHex(sha.digest())).as(VectorWidth.describe()).isEqualTo(DIGEST);
    }

    private static void study(MessageDigest sha, String name, int bits, int group, float[] w, int rows, int cols)
            throws WorkbenchException {
        IdempotenceStudy study = IdempotenceStudy.fromWeights(name, CqQuantizer.of(bits, group), w, rows, cols);
        for (int round = 0; round <= ROUNDS; round++) {
            if (round > 0) {
                IdempotenceRound r = study.next();
                add(sha, r.normSum(), r.maxAbsWeightChange(), r.rmsWeightChange(), r.codesChanged(), r.normsChanged());
            }
            CqCodes state = study.state();
            sha.update(state.codes());
            ByteBuffer b = ByteBuffer.allocate(state.norms().length * Short.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            for (short s : state.norms()) b.putShort(s);
            sha.update(b.array());
            float[] weights = study.weights();
            b = ByteBuffer.allocate(weights.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            for (float v : weights) b.putInt(Float.floatToRawIntBits(v));
            sha.update(b.array());
            int groups = state.norms().length;
            long[] prints = new long[groups];
            for (int g = 0; g < groups; g++) prints[g] = GroupFingerprint.of(state.codes(), g * group, group, state.norms()[g]);
            add(sha, prints);
        }
    }

    private static void add(MessageDigest sha, double... values) {
        long[] bits = new long[values.length];
        for (int i = 0; i < values.length; i++) bits[i] = Double.doubleToRawLongBits(values[i]);
        add(sha, bits);
    }

    private static void add(MessageDigest sha, long... values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) b.putLong(v);
        sha.update(b.array());
    }
}
