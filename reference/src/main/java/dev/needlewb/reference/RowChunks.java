package dev.needlewb.reference;

import java.util.stream.IntStream;

/**
 * Splits work over rows into chunks of a fixed size and runs the chunks on the common fork-join
 * pool. The chunks depend on the row count only, never on the number of threads, and each writes
 * its own rows, so a result has the same bits however many threads ran it.
 */
public final class RowChunks {
    /** Rows per chunk: a fraction of a 256-token prefill, large enough that a chunk costs far more than its fork. */
    public static final int ROWS = 32;

    /** The work on rows [from, to). */
    @FunctionalInterface
    public interface Body {
        void run(int from, int to);
    }

    private RowChunks() {}

    public static void forEach(int rows, Body body) {
        int chunks = (rows + ROWS - 1) / ROWS;
        if (chunks <= 1) {
            body.run(0, rows);
            return;
        }
        IntStream.range(0, chunks).parallel().forEach(c -> body.run(c * ROWS, Math.min(rows, (c + 1) * ROWS)));
    }
}
