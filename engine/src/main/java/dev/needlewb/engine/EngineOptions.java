package dev.needlewb.engine;

import dev.needlewb.engine.kernel.NumericMode;

/**
 * Per-run choices. {@code window}: sliding KV window, {@code -1} = the header's kv_window
 * (none when it is 0 or at least max_seq_len, see {@code Geometry.slidingWindow}), 0 = none.
 * {@code sinks}: leading positions always visible (e.g. a tool prefix). {@code maxPositions}: the
 * longest session, {@code -1} = the header's max_seq_len. KV precision follows the mode: float32
 * in {@link NumericMode#EXACT}, int8 with one scale per 32 values in {@link NumericMode#INT8}.
 */
public record EngineOptions(NumericMode mode, int threads, int window, int sinks, int maxPositions) {
    public static final int FROM_HEADER = -1;

    public EngineOptions {
        if (threads < 1) throw new IllegalArgumentException("threads must be >= 1, got " + threads);
        if (window < FROM_HEADER || sinks < 0 || (maxPositions < 1 && maxPositions != FROM_HEADER)) {
            throw new IllegalArgumentException("window " + window + ", sinks " + sinks + ", max positions " + maxPositions);
        }
    }

    /** The production defaults: int8, 2 threads, header window, no sinks, header max_seq_len. */
    public static EngineOptions production() {
        return new EngineOptions(NumericMode.INT8, 2, FROM_HEADER, 0, FROM_HEADER);
    }

    /** Exact mode without a window (what the float reference computes), one thread. */
    public static EngineOptions exact(int maxPositions) {
        return new EngineOptions(NumericMode.EXACT, 1, 0, 0, maxPositions);
    }

    public EngineOptions withThreads(int n) {
        return new EngineOptions(mode, n, window, sinks, maxPositions);
    }

    public EngineOptions withWindow(int w, int s) {
        return new EngineOptions(mode, threads, w, s, maxPositions);
    }

    public EngineOptions withMode(NumericMode m) {
        return new EngineOptions(m, threads, window, sinks, maxPositions);
    }
}
