package dev.needlewb.converter.cact;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;

/**
 * The bytes of a {@code .cact} being validated, read little-endian, with the file name errors
 * cite and the size of its generation's header (where the codebook and directory start). The
 * caller checks every offset against {@link #length} before reading it.
 */
public record CactBytes(MemorySegment bytes, Path file, int headerBytes) {
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    public long length() {
        return bytes.byteSize();
    }

    /** Byte offset of directory record {@code i}. */
    public long recordOffset(long i) {
        return CactFormat.recordOffset(headerBytes, i);
    }

    public int u8(long offset) {
        return bytes.get(ValueLayout.JAVA_BYTE, offset) & 0xFF;
    }

    public int u16(long offset) {
        return bytes.get(U16, offset) & 0xFFFF;
    }

    /** The u32 at {@code offset} as Java stores it (read unsigned with {@link #u32}). */
    public int i32(long offset) {
        return bytes.get(U32, offset);
    }

    public long u32(long offset) {
        return Integer.toUnsignedLong(bytes.get(U32, offset));
    }

    /** The u64 at {@code offset} as Java stores it (negative above 2^63-1). */
    public long i64(long offset) {
        return bytes.get(U64, offset);
    }

    public float f16(long offset) {
        return Float.float16ToFloat(bytes.get(U16, offset));
    }

    public float f32(long offset) {
        return bytes.get(F32, offset);
    }
}
