package dev.needlewb.engine.kernel;

/**
 * How packed codes meet the activation. Codes are an LSB-first bit stream, so one byte holds
 * {@code planes = 8 / bits} codes and a 16-byte chunk holds {@code 16 * planes} of them. The kernel
 * loads a chunk once and peels plane {@code p} (every byte shifted right by {@code p * bits} and
 * masked), whose lane {@code j} is code {@code j * planes + p} of the chunk. The activation is stored
 * in that plane order once per input, so the kernels never shuffle codes.
 */
public record CodeLayout(int bits) {
    /** Bytes of packed codes the kernels consume per step. */
    public static final int CHUNK_BYTES = 16;
    /** Codes per chunk at 2 and 4 bits. */
    public static final int CHUNK_CODES_2BIT = CHUNK_BYTES * 4, CHUNK_CODES_4BIT = CHUNK_BYTES * 2;

    public CodeLayout {
        if (bits != 2 && bits != 4) throw new IllegalArgumentException("kernel code width must be 2 or 4 bits, got " + bits);
    }

    public int planes() {
        return 8 / bits;
    }

    public int codesPerChunk() {
        return CHUNK_BYTES * planes();
    }

    public int mask() {
        return (1 << bits) - 1;
    }

    /** Position in plane order of the code at natural position {@code k}. */
    public int planeIndex(int k) {
        int chunk = k / codesPerChunk();
        int inChunk = k % codesPerChunk();
        return chunk * codesPerChunk() + (inChunk % planes()) * CHUNK_BYTES + inChunk / planes();
    }
}
