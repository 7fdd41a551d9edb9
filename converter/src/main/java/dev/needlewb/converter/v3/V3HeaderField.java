package dev.needlewb.converter.v3;

/**
 * The 49 fields of the Needle 3 header, struct {@code <48If} (196 bytes), in the order upstream's
 * {@code _pack_cact} packs them (export.py:414-426) and {@code read_export} unpacks them
 * (export.py:460-477). Offsets follow from the order: every field is a little-endian u32 (the
 * arrays {@code engram_orders[4]} and {@code engram_sites[16]} one per slot) except rope_theta,
 * the closing f32. The names are upstream's, so reports and errors say them.
 */
public enum V3HeaderField {
    TAG, NUM_TENSORS, CODEBOOK_LEN, KV_WINDOW, KV_BITS,
    VOCAB, OUT_VOCAB, D_MODEL, NUM_HEADS, NUM_KV_HEADS, NUM_LAYERS, QK_HEAD_DIM, V_HEAD_DIM, MAX_SEQ_LEN,
    HADA_N, MHC_LANES, SLIDING_WINDOW, GLOBAL_MASK_LO, GLOBAL_MASK_HI, QKV_CONV_TAPS,
    ENGRAM_SLOTS, ENGRAM_SUB_DIM, NUM_ENGRAM_TABLES, ENGRAM_CONV_TAPS, ENGRAM_CONV_DILATION, ENGRAM_SEED_HEADS,
    NUM_ENGRAM_ORDERS, ENGRAM_ORDERS(4), NUM_ENGRAM_SITES, ENGRAM_SITES(16), ROPE_THETA;

    /** Bytes of the whole header: 48 u32 and one f32. */
    public static final int HEADER_BYTES;

    static {
        int at = 0;
        for (V3HeaderField f : values()) {
            f.offset = at;
            at += 4 * f.slots;
        }
        HEADER_BYTES = at;
    }

    private final int slots;
    private int offset;

    V3HeaderField() {
        this(1);
    }

    V3HeaderField(int slots) {
        this.slots = slots;
    }

    /** Byte offset of the field (its first slot). */
    public int offset() {
        return offset;
    }

    /** Byte offset of slot {@code i} of an array field. */
    public int offset(int i) {
        if (i < 0 || i >= slots) throw new IndexOutOfBoundsException(this + " has " + slots + " slots");
        return offset + 4 * i;
    }

    /** 1, or the array length. */
    public int slots() {
        return slots;
    }

    /** Upstream's name, e.g. {@code global_mask_lo}. */
    public String upstreamName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
