package dev.needlewb.converter.cact;

import dev.needlewb.converter.cq.CqCodebooks;

/** Byte-level constants of the {@code .cact} layout (SPEC section 5, upstream export.py). */
public final class CactFormat {
    public static final int TAG = 0x05E12A83;
    /** {@code <29If}: 29 u32 fields and rope_theta. */
    public static final int HEADER_BYTES = 120;
    /** {@code <BBHIIIIQQII}. */
    public static final int RECORD_BYTES = 44;
    public static final int ALIGN = 64;
    public static final int CODEBOOK_BYTES = CqCodebooks.HEADER_LENGTH * 4;
    /** Where the directory starts. */
    public static final int DIRECTORY_OFFSET = HEADER_BYTES + CODEBOOK_BYTES;

    // header field offsets
    static final int OFF_NUM_TENSORS = 4;
    static final int OFF_CODEBOOK_LEN = 8;
    static final int OFF_KV_WINDOW = 12;
    public static final int OFF_KV_BITS = 16;
    static final int OFF_VOCAB = 20;
    static final int OFF_D_MODEL = 24;
    static final int OFF_NUM_HEADS = 28;
    static final int OFF_NUM_KV_HEADS = 32;
    static final int OFF_NUM_LAYERS = 36;
    public static final int OFF_HEAD_DIM = 40;
    static final int OFF_MAX_SEQ_LEN = 44;
    static final int OFF_HADA_N = 48;
    static final int OFF_MHC_LANES = 52;
    static final int OFF_ENGRAM_SLOTS = 56;
    static final int OFF_ENGRAM_SUB_DIM = 60;
    static final int OFF_ENGRAM_TABLES = 64;
    static final int OFF_CONV_TAPS = 68;
    static final int OFF_CONV_DILATION = 72;
    static final int OFF_NUM_ORDERS = 76;
    static final int OFF_ORDERS = 80;
    static final int OFF_NUM_SITES = 96;
    public static final int OFF_SITES = 100;
    static final int OFF_ROPE_THETA = 116;

    // directory record field offsets
    static final int REC_DTYPE = 0;
    static final int REC_NDIM = 1;
    static final int REC_PAD = 2;
    static final int REC_SHAPE = 4;
    static final int REC_OFFSET = 20;
    static final int REC_NBYTES = 28;
    static final int REC_GROUP = 36;
    static final int REC_BITS = 40;

    /** CQ group sizes a file may use. */
    public static final int[] GROUPS = {64, 128};

    private CactFormat() {}

    /** {@code n} rounded up to a multiple of 64. */
    public static long align(long n) {
        return (n + ALIGN - 1) & -(long) ALIGN;
    }

    /** Byte offset of directory record {@code i}. */
    public static long recordOffset(long i) {
        return DIRECTORY_OFFSET + i * RECORD_BYTES;
    }
}
