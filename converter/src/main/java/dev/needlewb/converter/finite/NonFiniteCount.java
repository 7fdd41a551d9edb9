package dev.needlewb.converter.finite;

import dev.needlewb.core.io.NpyArray;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Locale;

/**
 * How many elements of an array of floats are NaN or infinite, and the first of them (its
 * element index and value). Counted on the stored bits: float16 and float32 exponents all ones.
 */
public record NonFiniteCount(long count, long firstElement, float firstValue) {
    private static final ValueLayout.OfShort F16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt F32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong F64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final NonFiniteCount NONE = new NonFiniteCount(0, -1, 0);
    /** Elements copied out of the segment at a time: the scan then runs over a plain array, fast from the first load on. */
    private static final int CHUNK = 8192;

    public boolean any() {
        return count > 0;
    }

    /** Little-endian float16 values. */
    public static NonFiniteCount ofHalves(MemorySegment halves) {
        long n = halves.byteSize() / 2, count = 0, first = -1;
        short[] chunk = new short[(int) Math.min(CHUNK, n)];
        for (long base = 0; base < n; base += chunk.length) {
            int len = (int) Math.min(chunk.length, n - base);
            MemorySegment.copy(halves, F16, 2 * base, chunk, 0, len);
            for (int i = 0; i < len; i++) {
                if ((chunk[i] & 0x7C00) == 0x7C00 && count++ == 0) first = base + i;
            }
        }
        return count == 0 ? NONE : new NonFiniteCount(count, first, Float.float16ToFloat(halves.get(F16, 2 * first)));
    }

    /** Little-endian float32 values. */
    public static NonFiniteCount ofFloats(MemorySegment floats) {
        long n = floats.byteSize() / 4, count = 0, first = -1;
        int[] chunk = new int[(int) Math.min(CHUNK, n)];
        for (long base = 0; base < n; base += chunk.length) {
            int len = (int) Math.min(chunk.length, n - base);
            MemorySegment.copy(floats, F32, 4 * base, chunk, 0, len);
            for (int i = 0; i < len; i++) {
                if ((chunk[i] & 0x7F800000) == 0x7F800000 && count++ == 0) first = base + i;
            }
        }
        return count == 0 ? NONE : new NonFiniteCount(count, first, Float.intBitsToFloat(floats.get(F32, 4 * first)));
    }

    /** Little-endian float64 values (the first as float: NaN, or an infinity of its sign). */
    public static NonFiniteCount ofDoubles(MemorySegment doubles) {
        long n = doubles.byteSize() / 8, count = 0, first = -1;
        long[] chunk = new long[(int) Math.min(CHUNK, n)];
        for (long base = 0; base < n; base += chunk.length) {
            int len = (int) Math.min(chunk.length, n - base);
            MemorySegment.copy(doubles, F64, 8 * base, chunk, 0, len);
            for (int i = 0; i < len; i++) {
                if ((chunk[i] & 0x7FF0000000000000L) == 0x7FF0000000000000L && count++ == 0) first = base + i;
            }
        }
        return count == 0 ? NONE : new NonFiniteCount(count, first, (float) Double.longBitsToDouble(doubles.get(F64, 8 * first)));
    }

    /** The floating-point elements of an array; integer and boolean arrays hold no non-finite value. */
    public static NonFiniteCount of(NpyArray a) {
        MemorySegment data = MemorySegment.ofArray(a.data());
        return switch (a.descr()) {
            case "<f2" -> ofHalves(data);
            case "<f4" -> ofFloats(data);
            case "<f8" -> ofDoubles(data);
            default -> NONE;
        };
    }

    /** E.g. {@code 3 values are not finite (first: NaN at element 17)}. */
    public String describe() {
        return describe("value", "element");
    }

    /** {@link #describe()} with the first element's index in an array of {@code shape}, e.g. {@code (first: NaN at element 24903 = [3, 5, 7])}. */
    public String describe(int[] shape) {
        long[] index = new long[shape.length];
        long rest = firstElement;
        for (int d = shape.length - 1; d >= 0; d--) {
            index[d] = rest % shape[d];
            rest /= shape[d];
        }
        return describe("value", "element", " = " + Arrays.toString(index));
    }

    /** {@link #describe()} naming the floats {@code what} (singular; an s makes the plural) and their index {@code unit}. */
    public String describe(String what, String unit) {
        return describe(what, unit, "");
    }

    private String describe(String what, String unit, String where) {
        return String.format(Locale.ROOT, "%d %s%s not finite (first: %s at %s %d%s)", count, what, count == 1 ? " is" : "s are",
                firstValue, unit, firstElement, where);
    }
}
