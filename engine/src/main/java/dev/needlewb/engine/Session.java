package dev.needlewb.engine;

import dev.needlewb.core.v2.Geometry;
import dev.needlewb.engine.kernel.Activation;
import dev.needlewb.engine.kernel.NumericMode;
import dev.needlewb.engine.kernel.PackedCqMatrix;
import dev.needlewb.engine.kernel.RowPool;
import dev.needlewb.engine.layer.Arithmetic;
import dev.needlewb.engine.layer.Attention;
import dev.needlewb.engine.layer.Engram;
import dev.needlewb.engine.cache.FloatKvCache;
import dev.needlewb.engine.layer.HadamardMlp;
import dev.needlewb.engine.cache.Int8KvCache;
import dev.needlewb.engine.cache.KvCache;
import dev.needlewb.engine.layer.Mhc;
import dev.needlewb.engine.layer.Norms;
import dev.needlewb.engine.layer.Rope;
import dev.needlewb.engine.layer.Rows;
import dev.needlewb.engine.layer.Sinkhorn;
import dev.needlewb.engine.cache.TokenHistory;

/**
 * One sequence being decoded, one token per {@link #step}: the cached decode path of SPEC section 3
 * (upstream {@code decode._forward_cached}) without fake quantization. All buffers are allocated
 * here once; a compiled step allocates nothing but the tap copies it is asked for, unless C2 leaves a vector
 * helper out of line and boxes (seen at 256 bits; SessionAllocationTest, run by hand). Not thread-safe.
 *
 * <p>The model math between the matrix products is the engine's shared layer operations
 * ({@link Mhc}, {@link Engram}, {@link Norms}, {@link Rows}), the same the batch prefill runs over
 * many positions, under this session's {@link Arithmetic}.
 */
public final class Session {
    private final ModelWeights w;
    private final NumericMode mode;
    private final Arithmetic arithmetic;
    private final Arithmetic.Sums sums;
    private final Geometry g;
    private final RowPool pool;
    private final TapSink taps;
    private final KvCache cache;
    private final Rope rope;
    private final Attention attention;
    private final HadamardMlp mlp;
    private final TokenHistory history;
    private final Engram[] engrams;
    private final int[] siteOfLayer;
    private final String[] layerNames;
    private final int d, lanes, heads, kvHeads, headDim;
    private final float embedScale;

    private final Activation mhcIn, attnIn, attnOutIn, logitIn;
    private final float[] lanesX, nx, mixed, hp, hq, hr, hpre, hpost, sink, u, bx, xn, q, k, v, gate, o, attnOut, y,
            ek, ev, logits, h, scratch, alpha;
    private final PackedCqMatrix[][] mhcMatrices, attnMatrices;
    private final float[][] mhcOutputs, attnOutputs;
    private int position;

    Session(ModelWeights w, NumericMode mode, RowPool pool, int window, int sinks, int maxPositions, TapSink taps) {
        this.w = w;
        this.mode = mode;
        this.arithmetic = Arithmetic.of(mode);
        this.sums = arithmetic.sums();
        this.g = w.g;
        this.pool = pool;
        this.taps = taps;
        d = g.dModel();
        lanes = g.mhcLanes();
        heads = g.numHeads();
        kvHeads = g.numKvHeads();
        headDim = g.headDim();
        embedScale = (float) Math.sqrt(d);
        cache = mode == NumericMode.EXACT
                ? new FloatKvCache(g.numLayers(), kvHeads, headDim, window, sinks, maxPositions)
                : new Int8KvCache(g.numLayers(), kvHeads, headDim, window, sinks, maxPositions);
        rope = new Rope(headDim, g.ropeTheta(), 1);
        attention = new Attention(heads, kvHeads, headDim, pool, arithmetic.exp());
        mlp = new HadamardMlp(d, g.hadaN(), arithmetic.exp());
        Engram.Tables tables = ModelWeights.engramTables(g);
        int maxOrder = 1;
        for (int o : tables.orders()) maxOrder = Math.max(maxOrder, o);
        history = new TokenHistory(maxOrder);
        engrams = new Engram[g.numEngramSites()];
        siteOfLayer = ModelWeights.siteOfLayer(g);
        for (int s = 0; s < engrams.length; s++) {
            engrams[s] = new Engram(w.engrams[s], tables, g.engramConvTaps(), g.engramConvDilation(), mode);
        }
        layerNames = ModelWeights.layerNames(g);
        LayerWeights l0 = w.layers[0];
        mhcIn = l0.phiPre().newActivation(mode);
        attnIn = l0.q().newActivation(mode);
        attnOutIn = l0.out().newActivation(mode);
        logitIn = w.embedding.newActivation(mode);
        lanesX = new float[lanes * d];
        nx = new float[lanes * d];
        mixed = new float[lanes * d];
        hp = new float[lanes];
        hq = new float[lanes];
        hr = new float[lanes * lanes];
        hpre = new float[lanes];
        hpost = new float[lanes];
        sink = new float[lanes * lanes];
        u = new float[d];
        bx = new float[d];
        xn = new float[d];
        q = new float[g.qDim()];
        k = new float[g.kvDim()];
        v = new float[g.kvDim()];
        gate = new float[g.qDim()];
        o = new float[g.qDim()];
        attnOut = new float[d];
        y = new float[d];
        ek = new float[d];
        ev = new float[d];
        logits = new float[g.vocab()];
        h = new float[d];
        scratch = new float[w.embedding.decodeScratchLength()];
        alpha = new float[1];
        mhcMatrices = new PackedCqMatrix[g.numLayers()][];
        attnMatrices = new PackedCqMatrix[g.numLayers()][];
        for (int l = 0; l < g.numLayers(); l++) {
            LayerWeights lw = w.layers[l];
            mhcMatrices[l] = new PackedCqMatrix[] {lw.phiPre(), lw.phiPost(), lw.phiRes()};
            attnMatrices[l] = new PackedCqMatrix[] {lw.q(), lw.k(), lw.v(), lw.gate()};
        }
        mhcOutputs = new float[][] {hp, hq, hr};
        attnOutputs = new float[][] {q, k, v, gate};
    }

    /**
     * Starts a new sequence at position 0 in this session's buffers, as a server reuses one session
     * per request: only the token history needs clearing, since every KV slot and engram ring row
     * is written at its position before any read of that position.
     */
    public void reset() {
        position = 0;
        history.reset();
    }

    /** The position the next token will take. */
    public int position() {
        return position;
    }

    /** The KV cache (window, sinks, bytes held). */
    public KvCache cache() {
        return cache;
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
        if (taps != null) {
            step(token);
            return;
        }
        blocks(token, position);
        position++;
    }

    /**
     * Runs {@code token} at the current position and advances. Returns the full-vocabulary logits
     * in a buffer this session reuses: the next step overwrites it.
     */
    public float[] step(int token) {
        checkToken(token);
        checkRoom(position);
        int pos = position;
        blocks(token, pos);
        Mhc.mean(lanesX, 0, lanes, d, h, 0);
        Norms.zcn(sums, h, 0, d, w.finalNorm, 0, h, 0);
        tap("final.norm", pos, h, d);
        logitIn.prepare(h, 0);
        pool.matvec(logitIn, w.embedding, logits);
        tap("logits", pos, logits, g.vocab());
        position++;
        return logits;
    }

    /** The token's embedding through every block at {@code pos}: the lanes the final norm reads. */
    private void blocks(int token, int pos) {
        history.push(pos, token);
        rope.moveTo(pos);
        w.embedding.decodeRow(token, u, 0, scratch);
        for (int i = 0; i < d; i++) u[i] *= embedScale;
        tap("embed", pos, u, d);
        for (int lane = 0; lane < lanes; lane++) System.arraycopy(u, 0, lanesX, lane * d, d);

        for (int l = 0; l < g.numLayers(); l++) layer(l, pos);
    }

    private void checkToken(int token) {
        if (token < 0 || token >= g.vocab()) throw new IllegalArgumentException("token " + token + " outside vocab " + g.vocab());
    }

    private void checkRoom(int pos) {
        if (pos >= cache.maxPositions()) throw new IllegalStateException("session is full: " + cache.maxPositions() + " positions");
    }

    // Hooks for BatchPrefill, which computes a whole prompt elsewhere and hands the state over.

    /** The weights this session runs (a batch path must have been built from the same ones). */
    ModelWeights weights() {
        return w;
    }

    /**
     * Takes over the prompt {@code tokens} from position 0 of this fresh session when a path outside
     * the engine computed it (the torch engine): {@code keys[layer]} and {@code values[layer]}
     * [tokens, kv_dim] row-major, keys after their norm and RoPE, are written through {@link #cache()}
     * (an int8 session quantizes them as its own), then the session continues as after {@link #prefill}.
     * Bad input throws what {@link #prefill} throws, before the session changes.
     */
    public void adoptPrompt(int[] tokens, float[][] keys, float[][] values) {
        if (position != 0) throw new IllegalStateException("a prompt is adopted by a fresh session, this one is at " + position);
        checkPrefill(tokens);
        long width = (long) tokens.length * g.kvDim();
        if (keys.length != g.numLayers() || values.length != g.numLayers()) {
            throw new IllegalArgumentException("keys and values of " + keys.length + "/" + values.length + " layers for a model of " + g.numLayers());
        }
        for (int l = 0; l < keys.length; l++) {
            if (keys[l].length != width || values[l].length != width) {
                throw new IllegalArgumentException("layer " + l + ": keys/values of " + keys[l].length + "/" + values[l].length
                        + " floats, expected " + width + " (" + tokens.length + " positions of kv_dim " + g.kvDim() + ")");
            }
        }
        for (int l = 0; l < keys.length; l++) cache.writePrompt(l, tokens.length, keys[l], values[l]);
        adoptPrefix(tokens);
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
            if (pos >= tokens.length - reach) {
                for (Engram e : engrams) e.step(history, pos, pool, ek, ev);
            }
        }
        position = tokens.length;
    }

    /**
     * One block at {@code pos}: the mHC coefficients and block input, the engram injection at a site,
     * attention, the Hadamard MLP, the mHC update. Each stage is a method of its own, which also keeps
     * each of C2's compilation units small enough to compile every vector operation it inlines.
     */
    private void layer(int l, int pos) {
        LayerWeights lw = w.layers[l];
        String name = taps == null ? null : layerNames[l];
        tap(name, "lanes_in", pos, lanesX, lanes, d);
        blockInput(l, pos, name);
        if (siteOfLayer[l] >= 0) injectEngram(siteOfLayer[l], pos, name);
        attention(lw, l, pos, name);
        hadamardMlp(lw, pos, name);
        updateLanes(pos, name);
    }

    /** mHC: pre/post/res coefficients from the normalized flattened lanes; {@code u} and the block input {@code bx = u}. */
    private void blockInput(int l, int pos, String name) {
        Norms.rmsUnit(sums, lanesX, 0, lanes * d, nx, 0);
        mhcIn.prepare(nx, 0);
        pool.matvec(mhcIn, mhcMatrices[l], mhcOutputs);
        Mhc.coefficients(w.mhc, l, hp, 0, hq, 0, hr, 0, 1f, hpre, 0, hpost, 0, hr, 0);
        tap(name, "hpre", pos, hpre, lanes);
        Mhc.combine(lanesX, 0, lanes, d, hpre, 0, u, 0);
        tap(name, "u", pos, u, d);
        System.arraycopy(u, 0, bx, 0, d);
    }

    /** {@code bx += gate(u, k) v} with the site's engram key and conv-mixed value. */
    private void injectEngram(int site, int pos, String name) {
        engrams[site].step(history, pos, pool, ek, ev);
        alpha[0] = Engram.gate(u, 0, ek, 0, d, sums);
        Rows.addScaled(bx, 0, alpha[0], ev, 0, d);
        tap(name, "engram_alpha", pos, alpha, 1);
    }

    /** Attention with its zero-centred norms: {@code bx += sigmoid(attn_gate) ZCN(attention(ZCN(bx)))}. */
    private void attention(LayerWeights lw, int l, int pos, String name) {
        Norms.zcn(sums, bx, 0, d, lw.normIn(), 0, xn, 0);
        attnIn.prepare(xn, 0);
        pool.matvec(attnIn, attnMatrices[l], attnOutputs);
        for (int hh = 0; hh < heads; hh++) Norms.zcn(sums, q, hh * headDim, headDim, lw.qNorm(), 0, q, hh * headDim);
        for (int hh = 0; hh < kvHeads; hh++) Norms.zcn(sums, k, hh * headDim, headDim, lw.kNorm(), 0, k, hh * headDim);
        rope.apply(q, 0, heads, 0);
        rope.apply(k, 0, kvHeads, 0);
        tap(name, "attn.q", pos, q, heads, headDim);
        tap(name, "attn.k", pos, k, kvHeads, headDim);
        tap(name, "attn.v", pos, v, kvHeads, headDim);
        cache.write(l, pos, k, 0, v, 0);
        attention.attend(cache, l, pos, q, o);
        Rows.gate(o, 0, gate, 0, arithmetic.exp(), o, 0, o.length);
        attnOutIn.prepare(o, 0);
        pool.matvec(attnOutIn, lw.out(), attnOut);
        tap(name, "attn.out", pos, attnOut, d);
        Norms.zcn(sums, attnOut, 0, d, lw.postNorm(), 0, attnOut, 0);
        Rows.addScaled(bx, 0, Norms.sigmoid(lw.attnGate()), attnOut, 0, d);
    }

    /** The Hadamard MLP residual: {@code bx += mlp(ZCN(bx))}. */
    private void hadamardMlp(LayerWeights lw, int pos, String name) {
        Norms.zcn(sums, bx, 0, d, lw.preHada(), 0, xn, 0);
        mlp.apply(xn, lw.d1(), lw.d2(), lw.d3(), y);
        Rows.add(bx, 0, y, 0, d);
        tap(name, "block_out", pos, bx, d);
    }

    /** The mHC update: {@code X = sinkhorn(A) X + hpost (bx - u)}. */
    private void updateLanes(int pos, String name) {
        Sinkhorn.apply(hr, lanes, sink);
        tap(name, "hpost", pos, hpost, lanes);
        tap(name, "sinkhorn", pos, sink, lanes, lanes);
        Mhc.update(lanesX, 0, lanes, d, sink, 0, hpost, 0, bx, u, 0, mixed, 0);
        System.arraycopy(mixed, 0, lanesX, 0, lanes * d);
        tap(name, "lanes_out", pos, lanesX, lanes, d);
    }

    private void tap(String layerPrefix, String name, int pos, float[] values, int n) {
        if (taps != null) tap(layerPrefix + name, pos, values, n);
    }

    private void tap(String layerPrefix, String name, int pos, float[] values, int rows, int cols) {
        if (taps != null && taps.wants(layerPrefix + name)) {
            taps.record(layerPrefix + name, pos, java.util.Arrays.copyOf(values, rows * cols), rows, cols);
        }
    }

    private void tap(String name, int pos, float[] values, int n) {
        if (taps != null && taps.wants(name)) taps.record(name, pos, java.util.Arrays.copyOf(values, n), n);
    }
}
