package dev.needlewb.engine;

import dev.needlewb.engine.cache.FloatKvCache;
import dev.needlewb.engine.cache.Int8KvCache;
import dev.needlewb.engine.cache.KvCache;
import dev.needlewb.engine.cache.LayerCaches;
import dev.needlewb.engine.cache.TokenHistory;
import dev.needlewb.engine.kernel.NumericMode;
import dev.needlewb.engine.kernel.RowPool;
import dev.needlewb.engine.layer.Arithmetic;
import dev.needlewb.engine.layer.Engram;
import dev.needlewb.engine.layer.QkvConv;
import dev.needlewb.engine.probe.CellPool;
import dev.needlewb.engine.probe.ProbeOutputs;

/**
 * One sequence being decoded, one token per {@link #step}: the {@link Forward} of one position on the
 * packed kernels of the session's mode ({@link PackedKernels}) under that mode's {@link Arithmetic}, over the
 * session's state: its KV caches (one per attention window of its layers), token history, engram rings and,
 * in Needle 3, each layer's recent raw projections for the QKV conv. All buffers are allocated here once; a
 * compiled step allocates nothing but the tap copies it is asked for, unless C2 leaves a vector helper out
 * of line and boxes (seen at 256 bits; SessionAllocationTest, run by hand). Not thread-safe.
 */
public final class Session {
    private final ModelWeights w;
    private final EngineShape g;
    private final LayerCaches caches;
    private final TokenHistory history;
    private final PackedKernels kernels;
    private final Activations activations;
    private final Forward forward;
    /** The QKV conv's history (null without a conv): a batch prefill fills it as native prefill would. */
    private final QkvConv conv;
    private final boolean tapped;
    private final NumericMode mode;
    /** The probe heads' pool of this sequence's hidden cells, or null when no head was asked for (plain decoding pays nothing). */
    private CellPool cells;
    private final int[] token = new int[1];
    private int position;

    /** {@code windows[layer]}: the attention window of every layer (0 = every earlier position), all with {@code sinks}. */
    Session(ModelWeights w, NumericMode mode, RowPool pool, int[] windows, int sinks, int maxPositions, TapSink taps) {
        this.w = w;
        this.g = w.s;
        this.mode = mode;
        caches = new LayerCaches(windows, (layers, window) -> mode == NumericMode.EXACT
                ? new FloatKvCache(layers, g.numKvHeads(), g.qkHeadDim(), g.vHeadDim(), window, sinks, maxPositions)
                : new Int8KvCache(layers, g.numKvHeads(), g.qkHeadDim(), g.vHeadDim(), g.maskedByModel(), window, sinks, maxPositions));
        int maxOrder = 1;
        for (int o : g.engramTables().orders()) maxOrder = Math.max(maxOrder, o);
        history = new TokenHistory(maxOrder);
        activations = new Activations(g, 1, 1);
        kernels = new PackedKernels(w, mode, pool, caches, history, activations);
        tapped = taps != null;
        conv = g.convTaps() == 0 ? null : new QkvConv(g.numLayers(), g.convTaps(), g.vAt() + g.vDim(), windows);
        forward = new Forward(w, Arithmetic.of(mode), pool, kernels, activations,
                tapped ? new ForwardTaps(taps, g.layerNames()) : ForwardTaps.NONE, conv);
    }

    /**
     * Starts a new sequence at position 0 in this session's buffers, as a server reuses one session
     * per request: only the token history needs clearing, since every KV slot and engram ring row
     * is written at its position before any read of that position.
     */
    public void reset() {
        position = 0;
        history.reset();
        if (cells != null) cells.clear();
    }

    /**
     * Makes this fresh session pool its hidden cells for the model's probe heads from now on (every
     * position it runs, natively or in a batch prefill), so {@link #probeHeads} can be read after any step.
     *
     * @throws IllegalStateException when the session is not at position 0, or the model has no probe head
     */
    public Session poolingProbeCells() {
        if (position != 0) throw new IllegalStateException("probe heads pool a sequence from its first position; this session is at " + position);
        if (w.heads.isEmpty()) throw new IllegalStateException("the model has no probe head");
        if (cells == null) {
            cells = new CellPool(w.heads, g.dModel(), mode);
            forward.poolCells(cells);
        }
        return this;
    }

    /**
     * The probe heads over every position run so far (PAD positions excluded, as upstream's keep mask says).
     *
     * @throws IllegalStateException unless {@link #poolingProbeCells} was called, or before any non-PAD position
     */
    public ProbeOutputs probeHeads() {
        if (cells == null) throw new IllegalStateException("this session does not pool its cells (poolingProbeCells)");
        return cells.outputs();
    }

    /** The pool of the probe heads, or null (a batch prefill and a prefix snapshot reach it). */
    CellPool cells() {
        return cells;
    }

    /** The position the next token will take. */
    public int position() {
        return position;
    }

    /** The KV cache (window, sinks, bytes held) of a model whose layers share one window (Needle 2's). */
    public KvCache cache() {
        return caches.only();
    }

    /** Bytes the session's KV caches hold. */
    public long cacheBytes() {
        return caches.bytes();
    }

    /**
     * Feeds {@code tokens} one by one from the current position and returns a copy of the logits
     * after the last one. An empty prompt, a token outside the vocabulary or a prompt beyond the
     * last position throws before the session changes.
     */
    public float[] prefill(int[] tokens) {
        checkPrefill(tokens);
        for (int i = 0; i < tokens.length - 1; i++) advance(tokens[i]);
        return step(tokens[tokens.length - 1]).clone();
    }

    /**
     * {@link #step} without the final norm and LM head, whose logits a prompt token before the last does not
     * need; a session with taps runs the whole step so every tap is recorded. What later steps compute does
     * not change. The caller has checked the token and the room ({@link #checkPrefill}).
     */
    void advance(int token) {
        run(token, tapped);
    }

    /**
     * Runs {@code token} at the current position and advances. Returns the full-vocabulary logits
     * in a buffer this session reuses: the next step overwrites it.
     */
    public float[] step(int token) {
        checkToken(token);
        checkRoom(position);
        run(token, true);
        return activations.logits;
    }

    private void run(int token, boolean logits) {
        history.push(position, token);
        this.token[0] = token;
        forward.run(this.token, position, logits);
        position++;
    }

    private void checkToken(int token) {
        if (token < 0 || token >= g.vocab()) throw new IllegalArgumentException("token " + token + " outside vocab " + g.vocab());
    }

    private void checkRoom(int pos) {
        if (pos >= caches.maxPositions()) throw new IllegalStateException("session is full: " + caches.maxPositions() + " positions");
    }

    // Hooks for BatchPrefill, which computes a whole prompt elsewhere and hands the state over.

    /** The weights this session runs (a batch path must have been built from the same ones). */
    ModelWeights weights() {
        return w;
    }

    /**
     * Takes over the prompt {@code tokens} from position 0 of this fresh session when a path outside
     * the engine computed it (the torch engine): {@code keys[layer]} [tokens, k_dim] and {@code values[layer]}
     * [tokens, v_dim] row-major, keys after their norm and RoPE, are written through the layer's cache
     * (which keeps what its window keeps; an int8 session quantizes them as its own); with a QKV conv,
     * {@code convHistory[layer]} holds the raw q|k|v projections of the prompt's last
     * {@code min(tokens, taps - 1)} positions, which the next steps' conv reads (null without a conv).
     * Then the session continues as after {@link #prefill}. Bad input throws what {@link #prefill}
     * throws, before the session changes.
     */
    public void adoptPrompt(int[] tokens, float[][] keys, float[][] values, float[][] convHistory) {
        if (position != 0) throw new IllegalStateException("a prompt is adopted by a fresh session, this one is at " + position);
        if (cells != null) throw new IllegalStateException("a prompt computed elsewhere hands over no hidden cells for the probe heads");
        checkPrefill(tokens);
        int t = tokens.length;
        if (keys.length != g.numLayers() || values.length != g.numLayers()) {
            throw new IllegalArgumentException("keys and values of " + keys.length + "/" + values.length + " layers for a model of " + g.numLayers());
        }
        int convRows = conv == null ? 0 : Math.min(t, g.convTaps() - 1);
        if ((conv == null) != (convHistory == null) || (conv != null && convHistory.length != g.numLayers())) {
            throw new IllegalArgumentException(conv == null ? "a conv history for a model without a QKV conv"
                    : "the QKV conv history of " + (convHistory == null ? "no" : convHistory.length) + " layers for a model of " + g.numLayers());
        }
        for (int l = 0; l < keys.length; l++) {
            if (keys[l].length != (long) t * g.kDim() || values[l].length != (long) t * g.vDim()) {
                throw new IllegalArgumentException("layer " + l + ": keys/values of " + keys[l].length + "/" + values[l].length
                        + " floats, expected " + (long) t * g.kDim() + "/" + (long) t * g.vDim() + " (" + t + " positions of k_dim "
                        + g.kDim() + ", v_dim " + g.vDim() + ")");
            }
            if (conv != null && convHistory[l].length != convRows * conv.width()) {
                throw new IllegalArgumentException("layer " + l + ": a conv history of " + convHistory[l].length + " floats, expected "
                        + convRows * conv.width() + " (" + convRows + " positions of q|k|v width " + conv.width() + ")");
            }
        }
        for (int l = 0; l < keys.length; l++) {
            caches.cache(l).writePrompt(caches.index(l), t, keys[l], values[l]);
            if (conv != null) conv.remember(l, convHistory[l], t - convRows, convRows);
        }
        adoptPrefix(tokens);
    }

    /** The session's KV caches, one per attention window (a batch prefill writes a prompt's keys and values through them). */
    LayerCaches caches() {
        return caches;
    }

    /** The QKV conv's history, or null (a batch prefill runs its forward on it). */
    QkvConv conv() {
        return conv;
    }

    /** Throws for an empty prompt, the first token outside the vocabulary, or the first position past the last. */
    public void checkPrefill(int[] tokens) {
        if (tokens.length == 0) throw new IllegalArgumentException("prefill needs at least one token");
        for (int i = 0; i < tokens.length; i++) {
            checkToken(tokens[i]);
            checkRoom(position + i);
        }
    }

    /**
     * Takes over the prompt {@code tokens} from position 0 after the caller has written its keys and
     * values into {@link #cache()}: records the tokens and refills each engram's ring of past values
     * by running the engram natively over the last positions the conv can still reach (their keys
     * and values are discarded), so {@link #step} continues exactly as after {@link #prefill}.
     */
    void adoptPrefix(int[] tokens) {
        if (position != 0) throw new IllegalStateException("a prefix is adopted by a fresh session, this one is at " + position);
        int reach = Engram.reach(g.engramConvTaps(), g.engramConvDilation());
        for (int pos = 0; pos < tokens.length; pos++) {
            history.push(pos, tokens[pos]);
            if (pos >= tokens.length - reach) kernels.replayEngrams(pos);
        }
        position = tokens.length;
    }
}
