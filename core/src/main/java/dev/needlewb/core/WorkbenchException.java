package dev.needlewb.core;

/**
 * The one checked family for errors a user can cause: a bad file, a wrong tag, a truncated blob,
 * an unknown pickle global, a shape mismatch, an unsupported dtype. The command line prints
 * {@link #getMessage()} on one line and exits non-zero; it never prints a stack trace for these.
 */
public class WorkbenchException extends Exception {
    public WorkbenchException(String message) {
        super(message);
    }

    public WorkbenchException(String message, Throwable cause) {
        super(message, cause);
    }

    /** A file that cannot be opened or read, said the way a shell would ("no such file", "permission denied"). */
    public static WorkbenchException cannotRead(java.nio.file.Path file, java.io.IOException e) {
        String why = switch (e) {
            case java.nio.file.NoSuchFileException n -> "no such file";
            case java.nio.file.AccessDeniedException a -> "permission denied";
            case java.nio.file.FileSystemException f when f.getReason() != null -> f.getReason();
            default -> e.getMessage() == null ? e.toString() : e.getMessage();
        };
        return new WorkbenchException(file + ": cannot read: " + why, e);
    }
}
