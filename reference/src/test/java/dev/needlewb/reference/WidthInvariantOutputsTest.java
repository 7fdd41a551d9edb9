package dev.needlewb.reference;

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
 * The reference's kernels are the same bits at every vector width: every surefire execution (the
 * machine's width, MaxVectorSize 16 and 32, 512 bits forced) must reproduce this SHA-256 digest. It
 * was taken from the kernels as they were before they became width-agnostic, at 512 bits (their 8
 * double lanes then are today's 8 logical lanes), so it also pins that the port changed no bit; at 128
 * and 256 bits those kernels gave other digests (their lanes followed the width). The whole model's
 * logits, which also go through OpenBLAS, are {@link WidthInvariantLogitsTest}'s.
 */
@Tag("width")
@Tag("kernel")
class WidthInvariantOutputsTest {
    /** Vec and FloatRows alone: pure Java, so the same digest on every machine. */
    private static final String KERNELS = "47cd6cf31ad142a52d360163cfdc481ae79d0f2d4db5ee0fda6f21972e0c2f3c";

    @Test
    void kernelsAreTheSameBitsAtEveryWidth() throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        SplittableRandom random = new SplittableRandom(12);
        // head_dim 64 and d_model 512 of the released geometry, and lengths with a scalar tail
        for (int n : new int[] {64, 512, 75, 7}) {
            double[] a = gaussian(random, n + 3);
            double[] b = gaussian(random, n + 5);
            add(sha, Vec.dot(a, 3, b, 5, n));
            Vec.axpy(random.nextGaussian(), a, 3, b, 5, n);
            add(sha, b);
        }
        for (int[] shape : new int[][] {{512, 64}, {75, 13}, {8, 3}}) {
            int in = shape[0], out = shape[1];
            double[] w = new double[in * out];
            for (int i = 0; i < w.length; i++) w[i] = (float) random.nextGaussian();
            add(sha, FloatRows.ofExact(w, in, out).apply(gaussian(random, in)));
        }
        assertThat(HexFormat.of().formatHex(sha.digest())).as(VectorWidth.describe()).isEqualTo(KERNELS);
    }

    private static double[] gaussian(SplittableRandom random, int n) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) v[i] = random.nextGaussian();
        return v;
    }

    static void add(MessageDigest sha, double... values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * Double.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (double v : values) b.putLong(Double.doubleToRawLongBits(v));
        sha.update(b.array());
    }
}
