package dev.needlewb.core.io;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One numpy array: its dtype descriptor ({@code <f8}, {@code <f4}, {@code <f2}, {@code <i4},
 * {@code |u1}), its shape and its raw little-endian C-order bytes.
 */
public record NpyArray(String descr, int[] shape, byte[] data) {

    public NpyArray {
        long n = elementCount(shape);
        if (n * itemSize(descr) != data.length) {
            throw new IllegalArgumentException("npy " + descr + Arrays.toString(shape)
                    + " needs " + n * itemSize(descr) + " bytes, got " + data.length);
        }
    }

    public static NpyArray ofDoubles(int[] shape, double[] values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        b.asDoubleBuffer().put(values);
        return new NpyArray("<f8", shape, b.array());
    }

    public static NpyArray ofFloats(int[] shape, float[] values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(values);
        return new NpyArray("<f4", shape, b.array());
    }

    public static NpyArray ofInts(int[] shape, int[] values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        b.asIntBuffer().put(values);
        return new NpyArray("<i4", shape, b.array());
    }

    public static int itemSize(String descr) {
        return switch (descr) {
            case "<f8", "<i8", "<u8" -> 8;
            case "<f4", "<i4", "<u4" -> 4;
            case "<f2", "<i2", "<u2" -> 2;
            case "|u1", "|i1", "|b1" -> 1;
            default -> throw new IllegalArgumentException("unsupported npy dtype " + descr);
        };
    }

    public static long elementCount(int[] shape) {
        long n = 1;
        for (int d : shape) {
            if (d < 0) throw new IllegalArgumentException("negative npy dimension " + d);
            n = Math.multiplyExact(n, d);
        }
        return n;
    }

    public int size() {
        return Math.toIntExact(elementCount(shape));
    }

    private ByteBuffer buffer() {
        return ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Every element widened to double (float16 exactly, integers exactly). */
    public double[] asDoubles() {
        return asDoubles(0, size());
    }

    /**
     * Elements {@code [from, from + count)} (flat, row-major) widened like {@link #asDoubles()}: one
     * slice of a stacked array without widening the rest.
     */
    public double[] asDoubles(int from, int count) {
        if (from < 0 || count < 0 || from > size() - count) {
            throw new IndexOutOfBoundsException("elements [" + from + ", " + ((long) from + count) + ") of " + size());
        }
        double[] out = new double[count];
        ByteBuffer b = buffer();
        switch (descr) {
            case "<f8" -> b.position(8 * from).slice().order(ByteOrder.LITTLE_ENDIAN).asDoubleBuffer().get(out);
            case "<f4" -> { for (int i = 0; i < count; i++) out[i] = b.getFloat(4 * (from + i)); }
            case "<f2" -> { for (int i = 0; i < count; i++) out[i] = Float.float16ToFloat(b.getShort(2 * (from + i))); }
            case "<i4" -> { for (int i = 0; i < count; i++) out[i] = b.getInt(4 * (from + i)); }
            case "|u1" -> { for (int i = 0; i < count; i++) out[i] = data[from + i] & 0xFF; }
            default -> throw new IllegalArgumentException("cannot widen npy dtype " + descr);
        }
        return out;
    }

    /** Float32 or float16 elements as float (float16 widened exactly). */
    public float[] asFloats() {
        int n = size();
        float[] out = new float[n];
        ByteBuffer b = buffer();
        switch (descr) {
            case "<f4" -> b.asFloatBuffer().get(out);
            case "<f2" -> { for (int i = 0; i < n; i++) out[i] = Float.float16ToFloat(b.getShort(2 * i)); }
            default -> throw new IllegalArgumentException("expected a float32/float16 array, got " + descr);
        }
        return out;
    }

    /** The raw float16 bit patterns of a {@code <f2} array. */
    public short[] asHalfBits() {
        if (!descr.equals("<f2")) throw new IllegalArgumentException("expected float16, got " + descr);
        short[] out = new short[size()];
        buffer().asShortBuffer().get(out);
        return out;
    }

    public int[] asInts() {
        int n = size();
        int[] out = new int[n];
        switch (descr) {
            case "<i4" -> buffer().asIntBuffer().get(out);
            case "|u1" -> { for (int i = 0; i < n; i++) out[i] = data[i] & 0xFF; }
            default -> throw new IllegalArgumentException("expected an integer array, got " + descr);
        }
        return out;
    }
}
