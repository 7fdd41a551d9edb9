package dev.needlewb.cli;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import java.io.PrintWriter;

/**
 * {@code --threads}: at least 1, and at most the processors this JVM may use. The row kernels are
 * compute-bound: threads beyond the processors only wait for each other at every matrix (1000 on
 * two cores made a run three times slower), so more are capped with a note, not refused.
 */
final class ThreadCount {
    private ThreadCount() {}

    static int of(int requested, PrintWriter err) throws WorkbenchException {
        if (requested < 1) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--threads must be at least 1, got " + requested);
        int processors = Runtime.getRuntime().availableProcessors();
        if (requested <= processors) return requested;
        err.println("needle-wb: note: --threads " + requested + " capped at " + processors + ", the processors this JVM may use");
        err.flush();
        return processors;
    }
}
