package dev.needlewb.converter.cq;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * A CQ blob re-packed at 4 bits per code (nibbles, the low one first, the layout of a 4-bit
 * record), for kernels that take 2- and 4-bit codes only: a 3-bit tensor, or a 2-bit / ternary
 * tensor that shares its input with a 4-bit one. The codes keep their codebook index (a ternary
 * trit its index 0..2, not its stored crumb), so the codebook of the original width, padded with
 * zeros to 16 entries ({@link #paddedCodebook}), decodes the copy to the same weights.
 */
public final class CqNibbles {
    /** Entries of a 4-bit codebook. */
    public static final int LEVELS = 16;

    private CqNibbles() {}

    /**
     * The blob as a 4-bit one: every row's {@code inPad} codes as nibbles, then the FP16 norms
     * unchanged. Costs {@code rows * inPad / 2} bytes of codes plus the norms.
     *
     * @throws InvalidCodeException if a ternary crumb is 2 (no trit), with its offset in {@code blob}
     */
    public static byte[] widen(CqBlob blob) throws InvalidCodeException {
        int inPad = Math.toIntExact(blob.inPad());
        long rows = blob.rows();
        long rowNibbleBytes = inPad / 2;
        long normBytes = blob.data().byteSize() - blob.normsOffset();
        byte[] out = new byte[Math.toIntExact(Math.addExact(Math.multiplyExact(rows, rowNibbleBytes), normBytes))];
        byte[] codes = new byte[inPad];
        for (long r = 0; r < rows; r++) {
            long at = r * blob.rowBytes();
            int bad = CqPacking.unpackRow(blob.codes(), at, inPad, blob.recordBits(), codes);
            if (bad >= 0) throw new InvalidCodeException(at + bad / 4, "ternary crumb 2 (no trit) at row " + r + ", column " + bad);
            int to = Math.toIntExact(r * rowNibbleBytes);
            for (int k = 0; k < inPad; k += 2) out[to + k / 2] = (byte) (codes[k] | codes[k + 1] << 4);
        }
        MemorySegment.copy(blob.data(), blob.normsOffset(), MemorySegment.ofArray(out), rows * rowNibbleBytes, normBytes);
        return out;
    }

    /** {@code codebook} (the entries of the original width, by index) padded with zeros to 16 entries. */
    public static float[] paddedCodebook(float[] codebook) {
        if (codebook.length > LEVELS) throw new IllegalArgumentException(codebook.length + " codebook entries do not fit 4 bits");
        return Arrays.copyOf(codebook, LEVELS);
    }
}
