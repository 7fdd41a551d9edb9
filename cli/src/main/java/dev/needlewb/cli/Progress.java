package dev.needlewb.cli;

import java.io.Console;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * Progress of long work on standard error: on a terminal a one-line bar redrawn in place. Off a
 * terminal (pipes, CI logs) it is silent, or, for work long enough that a log would look hung
 * ({@link #logging}), one line per tenth of the work with the elapsed time and the rate.
 */
public final class Progress implements AutoCloseable {
    private static final long REDRAW_NANOS = 100_000_000L;

    private final PrintStream err;
    private final boolean bar;
    private final PrintWriter log;
    private final String label;
    private final String unit;
    private final long total;
    private final long start = System.nanoTime();
    private long lastDraw;
    private boolean drawn;
    private long lastTenth;
    private String detail = "";

    private Progress(String label, long total, boolean bar, PrintWriter log, String unit) {
        this.err = System.err;
        this.bar = bar;
        this.log = log;
        this.label = label;
        this.unit = unit;
        this.total = total;
    }

    /** A bar on a terminal, nothing otherwise. */
    public static Progress start(String label, long total) {
        return new Progress(label, total, onTerminal(), null, null);
    }

    /** A bar on a terminal, otherwise a line to {@code log} each time another tenth of {@code total} {@code unit} is done. */
    public static Progress logging(String label, long total, String unit, PrintWriter log) {
        boolean bar = onTerminal();
        return new Progress(label, total, bar, bar ? null : log, unit);
    }

    private static boolean onTerminal() {
        Console console = System.console();
        return console != null && console.isTerminal() && System.getenv("CI") == null;
    }

    public void update(long done) {
        if (bar) draw(done);
        else if (log != null) logLine(done);
    }

    /** As {@link #update(long)}, with {@code detail} after the count (how the work is spread, say). */
    public void update(long done, String detail) {
        this.detail = detail.isEmpty() ? "" : " " + detail;
        update(done);
    }

    private void draw(long done) {
        long now = System.nanoTime();
        if (drawn && now - lastDraw < REDRAW_NANOS && done < total) return;
        lastDraw = now;
        drawn = true;
        int width = 30;
        int filled = total <= 0 ? width : (int) Math.min(width, done * width / total);
        err.print("\r" + label + " [" + "#".repeat(filled) + " ".repeat(width - filled) + "] " + done + "/" + total + detail + "\033[K");
        err.flush();
    }

    private void logLine(long done) {
        long tenth = total <= 0 ? 10 : Math.min(10, done * 10 / total);
        if (tenth <= lastTenth) return;
        lastTenth = tenth;
        double seconds = (System.nanoTime() - start) / 1e9;
        log.printf(Locale.ROOT, "%s: %d%% (%d/%d %s) after %.1f s, %.2f %s/s%s%n", label, total <= 0 ? 100 : done * 100 / total, done, total,
                unit, seconds, seconds > 0 ? done / seconds : 0.0, unit, detail);
        log.flush();
    }

    @Override
    public void close() {
        if (bar && drawn) {
            err.print("\r\033[K");
            err.flush();
        }
    }
}
