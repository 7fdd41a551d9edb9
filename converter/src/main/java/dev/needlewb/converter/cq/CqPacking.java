package dev.needlewb.converter.cq;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The packed code stream of a CQ blob: per row, code {@code k} occupies bits
 * {@code [k*w, (k+1)*w)} of an LSB-first little-endian bit stream, {@code w} = the code width.
 * Upstream writes it as 8-code words of {@code w} bytes, which is the same stream. Ternary tensors
 * (record bits 5) store 2-bit crumbs 3, 0, 1 for trit indices 0, 1, 2 (a sign-extended crumb is
 * -1, 0, +1); crumb 2 is invalid.
 */
public final class CqPacking {
    /** The record bits value that marks a ternary tensor. */
    public static final int TERNARY_RECORD_BITS = 5;
    /** The crumb stored for each trit index. */
    private static final int[] TRIT_TO_CRUMB = {3, 0, 1};
    /** The trit index of each crumb; -1 for the invalid crumb 2. */
    private static final int[] CRUMB_TO_TRIT = {1, 2, -1, 0};

    private CqPacking() {}

    /** The stored width of one code: 2 for ternary crumbs, else the record bits. */
    public static int storedWidth(int recordBits) {
        return recordBits == TERNARY_RECORD_BITS ? 2 : recordBits;
    }

    /** Whether {@code recordBits} is a width a .cact record may carry (2, 3, 4 or ternary 5). */
    public static boolean isSupportedRecordBits(long recordBits) {
        return recordBits >= 2 && recordBits <= TERNARY_RECORD_BITS;
    }

    /**
     * Packs codebook indices (one row after another, each row {@code inPad} codes, {@code inPad} a
     * multiple of 8) for {@code recordBits}; ternary indices 0..2 become crumbs 3, 0, 1.
     */
    public static byte[] pack(byte[] indices, int recordBits) {
        int width = storedWidth(recordBits);
        if (indices.length % 8 != 0) throw new IllegalArgumentException("code count " + indices.length + " is not a multiple of 8");
        byte[] out = new byte[indices.length / 8 * width];
        int limit = recordBits == TERNARY_RECORD_BITS ? 3 : 1 << width;
        for (int k = 0; k < indices.length; k++) {
            int idx = indices[k] & 0xFF;
            if (idx >= limit) throw new IllegalArgumentException("code " + idx + " at " + k + " does not fit " + recordBits + " bits");
            int code = recordBits == TERNARY_RECORD_BITS ? TRIT_TO_CRUMB[idx] : idx;
            long bit = (long) k * width;
            int at = (int) (bit >>> 3);
            int shift = (int) (bit & 7);
            out[at] |= (byte) (code << shift);
            if (shift + width > 8) out[at + 1] |= (byte) (code >>> (8 - shift));
        }
        return out;
    }

    /**
     * Unpacks {@code count} codebook indices of one row starting at byte {@code offset} of
     * {@code packed} into {@code out} (ternary crumbs mapped back to trit indices).
     *
     * @return the position (0-based) of the first invalid ternary crumb, or -1 if all are valid
     */
    public static int unpackRow(MemorySegment packed, long offset, int count, int recordBits, byte[] out) {
        switch (recordBits) {
            case 2 -> {
                for (int k = 0; k < count; k += 4) {
                    int b = packed.get(ValueLayout.JAVA_BYTE, offset + (k >>> 2));
                    out[k] = (byte) (b & 3);
                    out[k + 1] = (byte) ((b >>> 2) & 3);
                    out[k + 2] = (byte) ((b >>> 4) & 3);
                    out[k + 3] = (byte) ((b >>> 6) & 3);
                }
            }
            case 4 -> {
                for (int k = 0; k < count; k += 2) {
                    int b = packed.get(ValueLayout.JAVA_BYTE, offset + (k >>> 1));
                    out[k] = (byte) (b & 15);
                    out[k + 1] = (byte) ((b >>> 4) & 15);
                }
            }
            case 3 -> {
                for (int k = 0; k < count; k += 8) {
                    long at = offset + (k >>> 3) * 3L;
                    int word = (packed.get(ValueLayout.JAVA_BYTE, at) & 0xFF)
                            | (packed.get(ValueLayout.JAVA_BYTE, at + 1) & 0xFF) << 8
                            | (packed.get(ValueLayout.JAVA_BYTE, at + 2) & 0xFF) << 16;
                    for (int i = 0; i < 8; i++) out[k + i] = (byte) ((word >>> (3 * i)) & 7);
                }
            }
            case TERNARY_RECORD_BITS -> {
                int bad = -1;
                for (int k = 0; k < count; k += 4) {
                    int b = packed.get(ValueLayout.JAVA_BYTE, offset + (k >>> 2));
                    for (int i = 0; i < 4; i++) {
                        int trit = CRUMB_TO_TRIT[(b >>> (2 * i)) & 3];
                        if (trit < 0 && bad < 0) bad = k + i;
                        out[k + i] = (byte) Math.max(trit, 0);
                    }
                }
                return bad;
            }
            default -> throw new IllegalArgumentException("unsupported CQ record bits " + recordBits);
        }
        return -1;
    }
}
