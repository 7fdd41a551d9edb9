package dev.needlewb.converter.cq;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A view of one CQ blob for a logical {@code [rows, cols]} matrix: first {@code rows} packed code
 * rows of {@link #rowBytes()} bytes ({@code cols} padded to {@link #inPad()}, a multiple of the
 * group), then {@code rows x groupsPerRow} FP16 group norms, row-major.
 */
public record CqBlob(long rows, long cols, int group, int recordBits, MemorySegment data) {

    public CqBlob {
        if (!CqPacking.isSupportedRecordBits(recordBits)) throw new IllegalArgumentException("CQ bits " + recordBits);
        if (group <= 0 || group % 8 != 0) throw new IllegalArgumentException("CQ group " + group);
        long expected = byteSize(rows, cols, recordBits, group);
        if (data.byteSize() != expected) {
            throw new IllegalArgumentException("CQ blob of " + data.byteSize() + " bytes, [" + rows + ", " + cols
                    + "] at " + recordBits + " bits needs " + expected);
        }
    }

    /**
     * The exact blob size of a {@code [rows, cols]} CQ matrix.
     *
     * @throws ArithmeticException if the size does not fit a long
     */
    public static long byteSize(long rows, long cols, int recordBits, int group) {
        long inPad = paddedCols(cols, group);
        long codeBytes = Math.multiplyExact(rows, Math.multiplyExact(inPad, CqPacking.storedWidth(recordBits)) / 8);
        long normBytes = Math.multiplyExact(Math.multiplyExact(rows, inPad / group), 2);
        return Math.addExact(codeBytes, normBytes);
    }

    /** {@code cols} rounded up to a multiple of {@code group}. */
    public static long paddedCols(long cols, int group) {
        return Math.multiplyExact(Math.ceilDiv(cols, group), group);
    }

    public long inPad() {
        return paddedCols(cols, group);
    }

    public long groupsPerRow() {
        return inPad() / group;
    }

    /** Bytes of one packed code row. */
    public long rowBytes() {
        return inPad() * CqPacking.storedWidth(recordBits) / 8;
    }

    /** Offset of the first FP16 norm inside the blob. */
    public long normsOffset() {
        return rows * rowBytes();
    }

    /** The stored FP16 norm of group {@code g} of row {@code r}, widened. */
    public float norm(long r, long g) {
        return Float.float16ToFloat(data.get(ValueLayout.JAVA_SHORT_UNALIGNED, normsOffset() + 2 * (r * groupsPerRow() + g)));
    }

    /** The packed code segment (all rows). */
    public MemorySegment codes() {
        return data.asSlice(0, normsOffset());
    }

    /** The norm segment ({@code rows x groupsPerRow} FP16). */
    public MemorySegment norms() {
        return data.asSlice(normsOffset());
    }
}
