package dev.needlewb.engine;

import dev.needlewb.engine.cache.KvCache;

/**
 * Prefill of a whole prompt at once: the same function as {@link Session#prefill} in exact mode,
 * computed as float32 GEMMs over all positions instead of one matrix-vector product per token. It
 * leaves the session exactly where native prefill would: the keys and values of every position written through the session's {@link KvCache} (so an int8
 * session quantizes them the same way), the token history and engram state in place, the position
 * after the prompt; {@link Session#step} then decodes natively.
 *
 * <p>The arithmetic is float32 throughout, whatever the engine's mode: an int8 engine gets a float32
 * prefill (no int8 activations) and stores its K/V in int8 as usual. Every product runs on a
 * packed Java vector kernel ({@link DenseWeights}) on the engine's threads, the rest in fused
 * vector passes ({@link BatchForward}); no native library is involved. Opening one builds dense
 * float32 copies of the CQ matrices off-heap ({@link DenseWeights}), the one place dense weights
 * exist; {@link #close} frees them. The native engine and its no-dense-copy guarantee are unaffected.
 *
 * <p>A batch prefill starts a fresh session (position 0); one prompt at a time per instance.
 */
public final class BatchPrefill implements Prefill, AutoCloseable {
    private final ModelWeights weights;
    private final DenseWeights dense;
    private final BatchForward forward;

    private BatchPrefill(ModelWeights weights, int threads) {
        this.weights = weights;
        this.dense = new DenseWeights(weights);
        this.forward = new BatchForward(weights, dense, threads);
    }

    /** Builds the dense weights of {@code engine}'s model; prompts run on the engine's thread count. */
    public static BatchPrefill open(Engine engine) {
        return new BatchPrefill(engine.weights(), engine.options().threads());
    }

    /**
     * Runs {@code tokens} from position 0 of {@code session} (a fresh session of the engine this was
     * opened on) and returns the logits after the last one. Bad input throws exactly what
     * {@link Session#prefill} throws, before the session changes.
     */
    @Override
    public float[] prefill(Session session, int[] tokens) {
        return run(session, tokens, false, BatchTaps.NONE);
    }

    /** As {@link #prefill(Session, int[])}, returning the logits of every position, {@code [tokens.length, vocab]} row-major. */
    public float[] prefillAllLogits(Session session, int[] tokens) {
        return run(session, tokens, true, BatchTaps.NONE);
    }

    /**
     * As {@link #prefill(Session, int[])}, recording into {@code taps} every intermediate the batch
     * path computes under the native engine's tap names and shapes (all of them; the engram_alpha of
     * sites only), one record per position, name by name.
     */
    public float[] prefill(Session session, int[] tokens, TapSink taps) {
        return run(session, tokens, false, new BatchTaps(taps));
    }

    private synchronized float[] run(Session session, int[] tokens, boolean allLogits, BatchTaps taps) {
        if (session.weights() != weights) throw new IllegalArgumentException("the session belongs to another engine");
        if (session.position() != 0) {
            throw new IllegalStateException("batch prefill starts a fresh session; this one is at position " + session.position()
                    + " (continue it with step or prefill)");
        }
        session.checkPrefill(tokens);
        KvCache cache = session.cache();
        BatchForward.KvSink kv = (layer, k, v, from, to) -> cache.writePrompt(layer, tokens.length, k, v, from, to);
        float[] out = forward.run(tokens, cache.window(), cache.sinks(), allLogits, kv, taps);
        session.adoptPrefix(tokens);
        return out;
    }

    @Override
    public synchronized void close() {
        dense.close();
    }
}
