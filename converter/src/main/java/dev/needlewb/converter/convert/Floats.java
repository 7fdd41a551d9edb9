package dev.needlewb.converter.convert;

import dev.needlewb.core.io.NpyArray;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** float16 encoding and bit-level comparison of float arrays. */
public final class Floats {
    private Floats() {}

    /** The float16 bit patterns of {@code a}: kept if it is float16, else rounded to nearest even. */
    public static short[] halfBits(NpyArray a) {
        if (a.descr().equals("<f2")) return a.asHalfBits();
        float[] f = a.asFloats();
        short[] out = new short[f.length];
        for (int i = 0; i < f.length; i++) out[i] = Float.floatToFloat16(f[i]);
        return out;
    }

    public static byte[] littleEndian(short[] halves) {
        ByteBuffer b = ByteBuffer.allocate(halves.length * 2).order(ByteOrder.LITTLE_ENDIAN);
        b.asShortBuffer().put(halves);
        return b.array();
    }

    public static NpyArray half(int[] shape, float[] values) {
        short[] h = new short[values.length];
        for (int i = 0; i < values.length; i++) h[i] = Float.floatToFloat16(values[i]);
        return new NpyArray("<f2", shape, littleEndian(h));
    }

    /** Whether the two arrays hold the same float32 bit patterns. */
    public static boolean sameBits(float[] a, float[] b) {
        if (a.length != b.length) return false;
        for (int i = 0; i < a.length; i++) {
            if (Float.floatToRawIntBits(a[i]) != Float.floatToRawIntBits(b[i])) return false;
        }
        return true;
    }

    /** The first non-finite element's index, or -1. */
    public static int firstNonFinite(float[] a) {
        for (int i = 0; i < a.length; i++) {
            if (!Float.isFinite(a[i])) return i;
        }
        return -1;
    }
}
