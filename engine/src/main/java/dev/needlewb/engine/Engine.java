package dev.needlewb.engine;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactFormat;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.engine.kernel.NumericMode;
import dev.needlewb.engine.kernel.RowPool;
import dev.needlewb.engine.cache.KvCache;
import java.nio.file.Path;

/**
 * A loaded model of either generation ({@link EngineGenerations} builds its {@link EngineShape}): the
 * {@code .cact} (copied into memory) viewed as packed weights, plus the run options and the row-splitting
 * thread pool. Loading reads the header and directory, widens the FP16
 * vectors, and builds views: no CQ matrix is ever dequantized. Sessions hold the per-sequence state.
 */
public final class Engine implements AutoCloseable {
    private final CactFile file;
    private final boolean ownsFile;
    private final ModelWeights weights;
    private final EngineOptions options;
    private final RowPool pool;
    private final int window;
    private final int[] windows;
    private final int maxPositions;

    /**
     * The engine of {@code shape} over {@code file}; reached through {@link EngineGenerations}. Needle 2 attends
     * over the options' window (the header's kv_window by default) with their sinks; Needle 3 over its own
     * mask, to which options may add no window (a positive one or sinks are refused).
     */
    Engine(CactFile file, boolean ownsFile, EngineOptions options, EngineShape shape) throws WorkbenchException {
        this.file = file;
        this.ownsFile = ownsFile;
        this.options = options;
        if (shape.maskedByModel()) {
            // Window 0 (none) adds nothing to the model's own mask, which is what a float reference computes.
            if (options.window() > 0 || options.sinks() != 0) {
                throw new WorkbenchException(ErrorKind.BAD_OPTION, file.path() + ": a Needle 3 model attends as upstream's mask says (sliding_window "
                        + shape.geometry().slidingWindowText() + "); a KV window or sinks on top of it are Needle 2 options");
            }
            this.windows = shape.headerWindows();
            this.window = java.util.Arrays.stream(windows).max().orElse(0);
        } else {
            // A header kv_window of max_seq_len or more never binds: no window (Geometry.slidingWindow).
            this.window = options.window() == EngineOptions.FROM_HEADER ? shape.headerWindows()[0] : options.window();
            this.windows = new int[shape.numLayers()];
            java.util.Arrays.fill(windows, window);
        }
        int asked = options.maxPositions() == EngineOptions.FROM_HEADER ? shape.maxSeqLen() : options.maxPositions();
        // A session's caches grow with the positions it reaches; only a windowless one past ~2^31 / kv_dim
        // positions would outgrow a Java array (millions of tokens, against a header that may say 2^31 - 1).
        int limit = Integer.MAX_VALUE, widest = Math.max(shape.kDim(), shape.vDim());
        for (int w : windows) limit = Math.min(limit, KvCache.positionLimit(widest, w, options.sinks()));
        this.maxPositions = Math.min(asked, limit);
        if (options.mode() == NumericMode.INT8 && shape.kvBits() != 8) {
            throw new FormatException(ErrorKind.UNSUPPORTED, file.path(), CactFormat.OFF_KV_BITS, "header kv_bits " + shape.kvBits()
                    + ": the engine's int8 mode runs an 8-bit KV cache only");
        }
        this.weights = new ModelWeights(file, shape);
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

    public ModelGeometry geometry() {
        return weights.s.geometry();
    }

    public EngineOptions options() {
        return options;
    }

    /** The sliding window in effect (0 = none); Needle 3: its local layers'. */
    public int window() {
        return window;
    }

    /**
     * The window in effect and where it comes from, for reports: the header's
     * ({@link ModelGeometry#slidingWindowText}, e.g. {@code none (kv_window 160 >= max_seq_len 128)}; Needle 3's
     * {@code 16 (global layers [2])}) or the caller's.
     */
    public String windowText() {
        if (weights.s.maskedByModel()) return weights.s.geometry().slidingWindowText() + " (the model's sliding_window)";
        if (options.window() == EngineOptions.FROM_HEADER) return weights.s.geometry().slidingWindowText() + (window > 0 ? " (header kv_window)" : "");
        return (window > 0 ? Integer.toString(window) : "none") + " (set for this run)";
    }

    /** The probe heads the model has (Needle 3's embedding, confidence, router; none for Needle 2), canonical order. */
    public java.util.List<dev.needlewb.converter.v3.V3ProbeHead> probeHeads() {
        return weights.heads.stream().map(dev.needlewb.engine.probe.ProbeHeadWeights::kind).toList();
    }

    /**
     * Upstream's probe heads over {@code tokens}: a fresh session pooling its hidden cells runs them through
     * {@code prefill} ({@link Prefill#NATIVE} or a {@link BatchPrefill} of this engine).
     *
     * @throws IllegalStateException when the model has no probe head
     */
    public dev.needlewb.engine.probe.ProbeOutputs probeHeads(int[] tokens, Prefill prefill) {
        Session s = newSession().poolingProbeCells();
        prefill.prefill(s, tokens);
        return s.probeHeads();
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
        return new Session(weights, options.mode(), pool, windows, options.sinks(), maxPositions, null);
    }

    /** A fresh sequence recording taps into {@code taps}. */
    public Session newSession(TapSink taps) {
        return new Session(weights, options.mode(), pool, windows, options.sinks(), maxPositions, taps);
    }

    @Override
    public void close() {
        pool.close();
        if (ownsFile) file.close();
    }
}
