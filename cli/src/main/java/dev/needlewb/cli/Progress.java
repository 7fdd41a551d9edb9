package dev.needlewb.cli;

import java.io.Console;
import java.io.PrintStream;

/**
 * A one-line progress indicator on the terminal's standard error. Silent when standard error is
 * not a terminal (pipes, CI logs), so logs stay clean.
 */
public final class Progress implements AutoCloseable {
    private static final long REDRAW_NANOS = 100_000_000L;

    private final PrintStream err;
    private final boolean enabled;
    private final String label;
    private final long total;
    private long lastDraw;
    private boolean drawn;

    private Progress(String label, long total, boolean enabled) {
        this.err = System.err;
        this.enabled = enabled;
        this.label = label;
        this.total = total;
    }

    public static Progress start(String label, long total) {
        Console console = System.console();
        return new Progress(label, total, console != null && console.isTerminal() && System.getenv("CI") == null);
    }

    public void update(long done) {
        if (!enabled) return;
        long now = System.nanoTime();
        if (drawn && now - lastDraw < REDRAW_NANOS && done < total) return;
        lastDraw = now;
        drawn = true;
        int width = 30;
        int filled = total <= 0 ? width : (int) Math.min(width, done * width / total);
        err.print("\r" + label + " [" + "#".repeat(filled) + " ".repeat(width - filled) + "] " + done + "/" + total);
        err.flush();
    }

    @Override
    public void close() {
        if (enabled && drawn) {
            err.print("\r\033[K");
            err.flush();
        }
    }
}
