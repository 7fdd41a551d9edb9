package dev.needlewb.converter;

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
}
