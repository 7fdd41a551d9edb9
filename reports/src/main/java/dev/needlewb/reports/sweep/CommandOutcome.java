package dev.needlewb.reports.sweep;

import java.io.Serializable;

/**
 * How one command of a sweep ended: its exit code (0 pass, 1 out of tolerance, 2 refused, 3 internal
 * error; {@link #CRASHED} when its process died first), the first line it printed on an error, and
 * its wall time. Serializable: a sweep on Spark sends it back from its executor.
 */
public record CommandOutcome(int exit, String error, double seconds) implements Serializable {
    /** The exit recorded for a command whose process ended before it reported one. */
    public static final int CRASHED = -1;

    /** True for exit 0 or 1: the command ran to its verdict. */
    public boolean ran() {
        return exit == 0 || exit == 1;
    }

    /** {@code exit 2: the first error line}, {@code exit 3: ...}, {@code crashed: ...}. */
    public String describe() {
        String what = exit == CRASHED ? "crashed" : "exit " + exit;
        return error == null || error.isBlank() ? what : what + ": " + error;
    }
}
