package dev.needlewb.core;

import java.util.Objects;

/**
 * The one checked family for errors a user can cause: a bad file, a wrong tag, a truncated blob,
 * an unknown pickle global, a shape mismatch, an unsupported dtype. Each carries its {@link #kind()};
 * the command line prints {@link #getMessage()} on one line and exits with the kind's code; it never
 * prints a stack trace for these.
 */
public class WorkbenchException extends Exception {
    private final ErrorKind kind;

    public WorkbenchException(ErrorKind kind, String message) {
        super(message);
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    public WorkbenchException(ErrorKind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    public ErrorKind kind() {
        return kind;
    }

    /** A file that cannot be opened or read, said the way a shell would ("no such file", "permission denied"). */
    public static WorkbenchException cannotRead(java.nio.file.Path file, java.io.IOException e) {
        String why = switch (e) {
            case java.nio.file.NoSuchFileException n -> "no such file";
            case java.nio.file.AccessDeniedException a -> "permission denied";
            case java.nio.file.FileSystemException f when f.getReason() != null -> f.getReason();
            default -> e.getMessage() == null ? e.toString() : e.getMessage();
        };
        return new WorkbenchException(ErrorKind.IO, file + ": cannot read: " + why, e);
    }
}
