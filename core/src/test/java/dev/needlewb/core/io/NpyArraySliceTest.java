package dev.needlewb.core.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class NpyArraySliceTest {
    private static final float[] VALUES = {1f, -2.5f, 0.1f, 65504f, -0f, 3.75f};

    @Test
    void aSliceIsThatRangeOfTheWholeWidening() {
        NpyArray f4 = NpyArray.ofFloats(new int[] {3, 2}, VALUES);
        short[] halves = new short[VALUES.length];
        for (int i = 0; i < halves.length; i++) halves[i] = Float.floatToFloat16(VALUES[i]);
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(2 * halves.length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.asShortBuffer().put(halves);
        NpyArray f2 = new NpyArray("<f2", new int[] {3, 2}, b.array());
        NpyArray f8 = NpyArray.ofDoubles(new int[] {3, 2}, f4.asDoubles());
        for (NpyArray a : new NpyArray[] {f4, f2, f8}) {
            double[] whole = a.asDoubles();
            for (int from = 0; from <= whole.length; from++) {
                for (int count = 0; from + count <= whole.length; count++) {
                    assertThat(a.asDoubles(from, count)).as(a.descr() + " [" + from + ", +" + count + ")")
                            .isEqualTo(Arrays.copyOfRange(whole, from, from + count));
                }
            }
        }
    }

    @Test
    void refusesARangeOutsideTheArray() {
        NpyArray a = NpyArray.ofFloats(new int[] {6}, VALUES);
        assertThatThrownBy(() -> a.asDoubles(4, 3)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> a.asDoubles(-1, 2)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> a.asDoubles(0, -1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> a.asDoubles(Integer.MAX_VALUE, 2)).isInstanceOf(IndexOutOfBoundsException.class);
    }
}
