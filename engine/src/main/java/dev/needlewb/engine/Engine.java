package dev.needlewb.engine;

import dev.needlewb.converter.v2.V2Header;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactFormat;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.engine.kernel.NumericMode;
import dev.needlewb.engine.kernel.RowPool;
import dev.needlewb.engine.cache.KvCache;
import java.nio.file.Path;

/**
 * A loaded Needle 2 model: the {@code .cact} (copied into memory) viewed as packed weights, plus the run options
 * and the row-splitting thread pool. Loading reads the header and directory, widens the FP16
 * vectors, and builds views: no CQ matrix is ever dequantized. Sessions hold the per-sequence state.
 */
public final class Engine implements AutoCloseable {
    private final CactFile file;
    private final boolean ownsFile;
    private final ModelWeights weights;
    private final EngineOptions options;
    private final RowPool pool;
    private final int window;
    private final int maxPositions;

    /** Needle 2's engine over {@code file}; reached through {@link EngineGenerations}. */
    Engine(CactFile file, boolean ownsFile, EngineOptions options) throws WorkbenchException {
        this.file = file;
        this.ownsFile = ownsFile;
        this.options = options;
        Geometry g = Geometry.of(file.geometry());
        // A header kv_window of max_seq_len or more never binds: no window (Geometry.slidingWindow).
        this.window = options.window() == EngineOptions.FROM_HEADER ? g.slidingWindow() : options.window();
        int asked = options.maxPositions() == EngineOptions.FROM_HEADER ? g.maxSeqLen() : options.maxPositions();
        // A session's caches grow with the positions it reaches; only a windowless one past ~2^31 / kv_dim
        // positions would outgrow a Java array (millions of tokens, against a header that may say 2^31 - 1).
        this.maxPositions = Math.min(asked, KvCache.positionLimit(g.kvDim(), window, options.sinks()));
        if (options.mode() == NumericMode.INT8 && g.kvBits() != 8) {
            throw new FormatException(ErrorKind.UNSUPPORTED, file.path(), CactFormat.OFF_KV_BITS, "header kv_bits " + g.kvBits()
                    + ": the engine's int8 mode runs an 8-bit KV cache only");
        }
        this.weights = new ModelWeights(file);
        this.pool = new RowPool(options.threads());
    }

    /** Reads {@code path} into memory and loads it as its generation's engine; {@link #close} frees it. */
    public static Engine open(Path path, EngineOptions options) throws WorkbenchException {
        CactFile file = CactFile.open(path);
        try {
            return EngineGenerations.of(file).load(file, true, options);
        } catch (WorkbenchException | RuntimeException e) {
            file.close();
            throw e;
        }
    }

    /** Loads from an open file the caller keeps open (and closes) for the engine's lifetime. */
    public static Engine load(CactFile file, EngineOptions options) throws WorkbenchException {
        return EngineGenerations.of(file).load(file, false, options);
    }

    public Geometry geometry() {
        return weights.g;
    }

    public EngineOptions options() {
        return options;
    }

    /** The sliding window in effect (0 = none). */
    public int window() {
        return window;
    }

    /**
     * The window in effect and where it comes from, for reports: the header's
     * ({@link Geometry#slidingWindowText}, e.g. {@code none (kv_window 160 >= max_seq_len 128)})
     * or the caller's.
     */
    public String windowText() {
        if (options.window() == EngineOptions.FROM_HEADER) return weights.g.slidingWindowText() + (window > 0 ? " (header kv_window)" : "");
        return (window > 0 ? Integer.toString(window) : "none") + " (set for this run)";
    }

    public int maxPositions() {
        return maxPositions;
    }

    /** The packed weights (for the batch prefill, which densifies them). */
    ModelWeights weights() {
        return weights;
    }

    /** The engine's threads, which every forward of its sessions and batch prefills runs on (one at a time). */
    RowPool pool() {
        return pool;
    }

    /** A fresh sequence at position 0 without taps. */
    public Session newSession() {
        return new Session(weights, options.mode(), pool, window, options.sinks(), maxPositions, null);
    }

    /** A fresh sequence recording taps into {@code taps}. */
    public Session newSession(TapSink taps) {
        return new Session(weights, options.mode(), pool, window, options.sinks(), maxPositions, taps);
    }

    @Override
    public void close() {
        pool.close();
        if (ownsFile) file.close();
    }
}
