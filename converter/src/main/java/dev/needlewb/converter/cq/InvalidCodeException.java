package dev.needlewb.converter.cq;

/** A CQ code stream holds a value with no codebook entry (ternary crumb 2). */
public final class InvalidCodeException extends Exception {
    private final long byteOffset;

    public InvalidCodeException(long byteOffset, String message) {
        super(message);
        this.byteOffset = byteOffset;
    }

    /** Offset of the offending byte inside the blob. */
    public long byteOffset() {
        return byteOffset;
    }
}
