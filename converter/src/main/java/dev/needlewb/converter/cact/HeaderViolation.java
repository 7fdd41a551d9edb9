package dev.needlewb.converter.cact;

/**
 * A header field breaking one of its generation's geometry rules: the field's byte offset and what
 * is wrong. The two helpers are the size checks every generation's rules share.
 */
public record HeaderViolation(int headerOffset, String problem) {

    /** A violation when the product of two non-negative sizes exceeds 2^31 - 1 (exact: both factors are below 2^62). */
    public static HeaderViolation productOver(int offset, String what, long a, long b) {
        long product = Math.multiplyExact(a, b);
        return product <= Integer.MAX_VALUE ? null
                : new HeaderViolation(offset, what + " = " + product + " exceeds 2^31-1 (the workbench indexes such a matrix with int)");
    }

    /** A field that must lie in 1..2^31-1. */
    public static HeaderViolation outOfRange(int offset, String name, int value) {
        return new HeaderViolation(offset, name + " " + Integer.toUnsignedString(value) + " must be between 1 and 2^31-1");
    }
}
