package dev.needlewb.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.function.Executable;

/** Asserts a refusal by what it is (its kind) and where it points, not by its wording. */
public final class Refusals {
    private Refusals() {}

    /** Runs {@code call}, which must throw a WorkbenchException of {@code kind}; returns it for its other fields. */
    public static WorkbenchException refused(ErrorKind kind, Executable call) {
        WorkbenchException e = assertThrows(WorkbenchException.class, call);
        assertEquals(kind, e.kind(), () -> "kind of: " + e.getMessage());
        return e;
    }

    /** As {@link #refused}, for a malformed file: the FormatException, whose file, tensor and offset the caller checks. */
    public static FormatException malformed(ErrorKind kind, Executable call) {
        FormatException e = assertThrows(FormatException.class, call);
        assertEquals(kind, e.kind(), () -> "kind of: " + e.getMessage());
        return e;
    }
}
