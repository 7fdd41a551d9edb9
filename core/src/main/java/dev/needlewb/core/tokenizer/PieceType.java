package dev.needlewb.core.tokenizer;

/** The piece type byte of the RAW tokenizer blob (SPEC section 6), in code order. */
public enum PieceType {
    NORMAL,
    UNKNOWN,
    CONTROL,
    USER_DEFINED,
    BYTE;

    private static final PieceType[] BY_CODE = values();

    /** The blob's type byte. */
    public int code() {
        return ordinal();
    }

    /** The type for a blob type byte, or null if the byte is not a known type. */
    static PieceType ofCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
