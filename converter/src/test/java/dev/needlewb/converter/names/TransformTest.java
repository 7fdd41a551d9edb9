package dev.needlewb.converter.names;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.io.NpyArray;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TransformTest {

    /** Shapes around the 32-element tiles: partial tiles on either axis, one row, one column. */
    @ParameterizedTest(name = "{0} [{1}, {2}]")
    @CsvSource({"<f4, 37, 70", "<f4, 64, 32", "<f2, 33, 95", "<f8, 41, 3", "|u1, 1, 100", "<i4, 100, 1"})
    void transposeMovesEveryElementAndBackAgain(String descr, int in, int out) {
        int item = NpyArray.itemSize(descr);
        byte[] data = new byte[in * out * item];
        new Random(in * 1000L + out).nextBytes(data);
        NpyArray kernel = new NpyArray(descr, new int[] {in, out}, data);
        NpyArray t = Transform.TRANSPOSE.forward(kernel, 0, new int[] {out, in});
        for (int r = 0; r < in; r++) {
            for (int c = 0; c < out; c++) {
                for (int b = 0; b < item; b++) {
                    // Element [r, c] of the Flax kernel is element [c, r] of the tensor, byte for byte.
                    assertThat(t.data()[(c * in + r) * item + b]).isEqualTo(data[(r * out + c) * item + b]);
                }
            }
        }
        assertThat(Transform.TRANSPOSE.inverse(t, new int[] {in, out}).data()).isEqualTo(data);
    }
}
