package dev.needlewb.converter.cq;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Group counts the golden mini file does not have (3, 5, 12, 16, 20 groups per row: narrow
 * kernels, 8x4 kernel remainders, the 12-wide chunk of the released mhc_phi matrices) against
 * SHA-256 digests of numpy's float32 output for the same deterministic input, computed on the
 * machine that reproduces the golden data:
 * <pre>
 * idx[r, k] = (31 r + 7 k + k // 5) % 4;  norms[r, g] = float16((1 + (r G + g) % 7) / 8)
 * w = (cb2[idx].reshape(6, G, n) * norms[..., None]) @ H(n);  sha256(w.astype('&lt;f4').tobytes())
 * </pre>
 */
class NumpyMatmulOrderTest {
    private static final float[] CB2 = {-0.1331721395254135f, -0.03990209102630615f, 0.04003528133034706f, 0.13346044719219208f};

    @ParameterizedTest
    @CsvSource({
        "128, 3, c76b0004d028b84449e93031e5acf83069dcd73a7946cf54cd130f4e1fc47891",
        "128, 5, 31fc42cb60cc0ae7d058a4b8f75d070d1899ccb06f0eb83292ef7c8574eeafb4",
        "128, 12, 730e76afc9653b44be46d45f66543f7242fcca76f2f1a8845433a4043d04f359",
        "128, 16, 39870bf02dd66d71ad7f11a6c8c3292c47d384cdab6511e12e3b812dd5940d73",
        "128, 20, 6bb7c8798d7bfef5e3bf666b1cdcbde572213d650b3fcfc8c1e19ddbe6ccda1e",
        "64, 3, 24802dad66ceb8566a0aff55b4e1b6bf2a83dc60ef05561894c91dffd166ec4f",
        "64, 5, b48078d447e991e4f2f3b0b92e4a3af1e3c21edc3fc98007db6cf5d819ab9e98",
        "64, 12, 82348c0132f90e6313dd59adc30beb68abd5a857ea755cb0fb41d447c677980b",
        "64, 16, 7fd7d48fe9e6a59bc27accc9ed52ef92d7dab8d772bee2d406b1cae1ff4d4f69",
        "64, 20, e77ee3d46ca89b9c3bb0f32fc354f11dbef2f506aa72ed07a7cc6ec99fcb52eb",
    })
    void dequantizationMatchesNumpy(int n, int groups, String sha256) throws Exception {
        int rows = 6;
        int cols = groups * n;
        byte[] idx = new byte[rows * cols];
        for (int r = 0; r < rows; r++) {
            for (int k = 0; k < cols; k++) idx[r * cols + k] = (byte) ((31 * r + 7 * k + k / 5) % 4);
        }
        byte[] packed = CqPacking.pack(idx, 2);
        ByteBuffer blob = ByteBuffer.allocate(packed.length + rows * groups * 2).order(ByteOrder.LITTLE_ENDIAN).put(packed);
        for (int r = 0; r < rows; r++) {
            for (int g = 0; g < groups; g++) blob.putShort(Float.floatToFloat16((1 + (r * groups + g) % 7) / 8f));
        }
        float[] w = CqDequantizer.dequantize(new CqBlob(rows, cols, n, 2, MemorySegment.ofArray(blob.array())), CB2);
        ByteBuffer bytes = ByteBuffer.allocate(w.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : w) bytes.putFloat(v);
        assertThat(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes.array()))).isEqualTo(sha256);
    }

    @org.junit.jupiter.api.Test
    void chunking() {
        assertThat(NumpyMatmulOrder.forRow(1)).containsExactly(NumpyMatmulOrder.GEMV_BLOCKS_OF_8);
        assertThat(NumpyMatmulOrder.forRow(7)).containsExactly(NumpyMatmulOrder.EVEN_ODD, NumpyMatmulOrder.EVEN_ODD,
                NumpyMatmulOrder.EVEN_ODD, NumpyMatmulOrder.EVEN_ODD, NumpyMatmulOrder.SEQUENTIAL,
                NumpyMatmulOrder.SEQUENTIAL, NumpyMatmulOrder.SEQUENTIAL);
    }
}
