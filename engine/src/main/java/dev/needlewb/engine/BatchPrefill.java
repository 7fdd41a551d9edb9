package dev.needlewb.engine;

import dev.needlewb.engine.cache.KvCache;
import dev.needlewb.engine.kernel.RowPool;
import dev.needlewb.engine.layer.Arithmetic;
import java.lang.foreign.Arena;
import java.util.Arrays;

/**
 * Prefill of a whole prompt at once: the same function as {@link Session#prefill} in exact mode,
 * computed as float32 GEMMs over all positions instead of one matrix-vector product per token. It
 * leaves the session exactly where native prefill would: the keys and values of every position written through the session's {@link KvCache} (so an int8
 * session quantizes them the same way), the token history and engram state in place, the position
 * after the prompt; {@link Session#step} then decodes natively.
 *
 * <p>It is the engine's one {@link Forward} over every position of the prompt, on {@link DenseKernels}:
 * the arithmetic is float32 throughout, whatever the engine's mode (an int8 engine gets a float32 prefill,
 * no int8 activations, and stores its K/V in int8 as usual), the passes between the products sum on vector
 * lanes with the polynomial exponential ({@link Arithmetic#VECTOR}). Every product runs on a packed Java vector
 * kernel ({@link DenseWeights}) on the engine's threads; no native library is involved. Opening one builds dense
 * float32 copies of the CQ matrices off-heap ({@link DenseWeights}), the one place dense weights
 * exist; {@link #close} frees them. The native engine and its no-dense-copy guarantee are unaffected.
 *
 * <p>A batch prefill starts a fresh session (position 0); one prompt at a time per instance.
 */
public final class BatchPrefill implements Prefill, AutoCloseable {
    private final ModelWeights weights;
    private final DenseWeights dense;
    private final RowPool pool;

    private BatchPrefill(ModelWeights weights, RowPool pool) {
        this.weights = weights;
        this.dense = new DenseWeights(weights);
        this.pool = pool;
    }

    /** Builds the dense weights of {@code engine}'s model; prompts run on the engine's threads. */
    public static BatchPrefill open(Engine engine) {
        return new BatchPrefill(engine.weights(), engine.pool());
    }

    /**
     * Runs {@code tokens} from position 0 of {@code session} (a fresh session of the engine this was
     * opened on) and returns the logits after the last one. Bad input throws exactly what
     * {@link Session#prefill} throws, before the session changes.
     */
    @Override
    public float[] prefill(Session session, int[] tokens) {
        return run(session, tokens, false, null);
    }

    /** As {@link #prefill(Session, int[])}, returning the logits of every position, {@code [tokens.length, vocab]} row-major. */
    public float[] prefillAllLogits(Session session, int[] tokens) {
        return run(session, tokens, true, null);
    }

    /**
     * As {@link #prefill(Session, int[])}, recording into {@code taps} every intermediate the batch
     * path computes under the native engine's tap names and shapes (all of them; the engram_alpha of
     * sites only), one record per position, name by name.
     */
    public float[] prefill(Session session, int[] tokens, TapSink taps) {
        return run(session, tokens, false, taps);
    }

    private synchronized float[] run(Session session, int[] tokens, boolean allLogits, TapSink sink) {
        if (session.weights() != weights) throw new IllegalArgumentException("the session belongs to another engine");
        if (session.position() != 0) {
            throw new IllegalStateException("batch prefill starts a fresh session; this one is at position " + session.position()
                    + " (continue it with step or prefill)");
        }
        session.checkPrefill(tokens);
        ForwardTaps taps = sink == null ? ForwardTaps.NONE : new ForwardTaps(sink, weights.s.layerNames());
        int t = tokens.length;
        boolean every = allLogits || taps.wants("logits") || taps.wants("final.norm");
        Activations a = new Activations(weights.s, t, every ? t : 1);
        try (Arena arena = Arena.ofShared()) {
            Kernels kernels = new DenseKernels(weights, dense, pool, tokens, session.caches(), arena);
            Forward forward = new Forward(weights, Arithmetic.VECTOR, pool, kernels, a, taps, session.conv());
            forward.poolCells(session.cells());
            forward.run(tokens, 0, true);
        }
        session.adoptPrefix(tokens);
        if (allLogits || !every) return a.logits;
        return Arrays.copyOfRange(a.logits, (t - 1) * weights.s.outVocab(), t * weights.s.outVocab());
    }

    @Override
    public synchronized void close() {
        dense.close();
    }
}
