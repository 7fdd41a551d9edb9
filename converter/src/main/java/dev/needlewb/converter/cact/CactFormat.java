package dev.needlewb.converter.cact;

import dev.needlewb.converter.cq.CqCodebooks;

/**
 * Byte-level constants of the {@code .cact} container every generation shares (SPEC sections 5, 8,
 * 9; upstream export.py): a header whose first five u32 are tag, num_tensors, codebook_len,
 * kv_window and kv_bits (Needle 2, its legacy header and Needle 3 alike; the rest is the
 * generation's, see {@link HeaderCodec}), the codebook, 44-byte directory records, 64-byte
 * aligned blobs.
 */
public final class CactFormat {
    /** {@code <BBHIIIIQQII}. */
    public static final int RECORD_BYTES = 44;
    public static final int ALIGN = 64;
    public static final int CODEBOOK_BYTES = CqCodebooks.HEADER_LENGTH * 4;

    // the header prefix every generation writes
    public static final int OFF_TAG = 0;
    public static final int OFF_NUM_TENSORS = 4;
    public static final int OFF_CODEBOOK_LEN = 8;
    public static final int OFF_KV_WINDOW = 12;
    public static final int OFF_KV_BITS = 16;

    // directory record field offsets
    static final int REC_DTYPE = 0;
    public static final int REC_NDIM = 1;
    static final int REC_PAD = 2;
    public static final int REC_SHAPE = 4;
    public static final int REC_OFFSET = 20;
    public static final int REC_NBYTES = 28;
    static final int REC_GROUP = 36;
    static final int REC_BITS = 40;

    /** CQ group sizes a file may use. */
    public static final int[] GROUPS = {64, 128};

    private CactFormat() {}

    /** {@code n} rounded up to a multiple of 64. */
    public static long align(long n) {
        return (n + ALIGN - 1) & -(long) ALIGN;
    }

    /** Where the directory starts after a header of {@code headerBytes}. */
    public static long directoryOffset(int headerBytes) {
        return headerBytes + CODEBOOK_BYTES;
    }

    /** Byte offset of directory record {@code i} after a header of {@code headerBytes}. */
    public static long recordOffset(int headerBytes, long i) {
        return directoryOffset(headerBytes) + i * RECORD_BYTES;
    }
}
