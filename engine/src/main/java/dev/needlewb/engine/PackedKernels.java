package dev.needlewb.engine;

import dev.needlewb.engine.cache.KvCache;
import dev.needlewb.engine.cache.LayerCaches;
import dev.needlewb.engine.cache.TokenHistory;
import dev.needlewb.engine.kernel.Activation;
import dev.needlewb.engine.kernel.NumericMode;
import dev.needlewb.engine.kernel.PackedCqMatrix;
import dev.needlewb.engine.kernel.RowPool;
import dev.needlewb.engine.layer.Arithmetic;
import dev.needlewb.engine.layer.Attention;
import dev.needlewb.engine.layer.Engram;
import dev.needlewb.engine.layer.Norms;

/**
 * The one-position case of the {@link Forward}, a session's step: every product a packed CQ
 * matrix-vector product in the session's numeric mode ({@link RowPool#matvec}, matrices that share an input
 * in one job); attention stores the position's key and value in the session's cache and reads every visible
 * one back ({@link Attention}); each engram site keeps the ring of its past values over the session's
 * tokens. The mHC norm is applied before its product. Row 0 of the activations only, at {@link Activations#first}.
 */
final class PackedKernels implements Kernels {
    private final ModelWeights w;
    private final Arithmetic arithmetic;
    private final RowPool pool;
    private final LayerCaches caches;
    private final TokenHistory history;
    private final Attention attention;
    private final Engram[] engrams;
    private final EngineShape shape;
    private final int d, lanes;
    private final Activation mhcIn, attnIn, attnOutIn, logitIn;
    private final float[] normedLanes;
    private final PackedCqMatrix[][] mhcMatrices, attnMatrices;
    /** The outputs of a shared-input job: every matrix writes into one row of the session's activations, from its offset. */
    private final float[][] mhcOutputs, attnOutputs;
    private final int[] mhcOffsets, attnOffsets;
    /** The engram key and value a prompt taken over computes only to refill the rings. */
    private final float[] replayKey, replayValue;

    /** The kernels of a session whose one row of activations is {@code a} (the products write into it, bound here once). */
    PackedKernels(ModelWeights w, NumericMode mode, RowPool pool, LayerCaches caches, TokenHistory history, Activations a) {
        EngineShape g = w.s;
        this.w = w;
        this.shape = g;
        this.arithmetic = Arithmetic.of(mode);
        this.pool = pool;
        this.caches = caches;
        this.history = history;
        d = g.dModel();
        lanes = g.mhcLanes();
        attention = new Attention(g.numHeads(), g.numKvHeads(), g.qkHeadDim(), g.vHeadDim(), pool, arithmetic.exp());
        Engram.Tables tables = g.engramTables();
        engrams = new Engram[g.numEngramSites()];
        for (int s = 0; s < engrams.length; s++) {
            engrams[s] = new Engram(w.engrams[s], tables, g.engramConvTaps(), g.engramConvDilation(), mode);
        }
        LayerWeights l0 = w.layers[0];
        mhcIn = l0.phiPre().newActivation(mode);
        attnIn = l0.q().newActivation(mode);
        attnOutIn = l0.out().newActivation(mode);
        logitIn = w.embedding.newActivation(mode);
        normedLanes = new float[lanes * d];
        mhcMatrices = new PackedCqMatrix[g.numLayers()][];
        attnMatrices = new PackedCqMatrix[g.numLayers()][];
        for (int l = 0; l < g.numLayers(); l++) {
            LayerWeights lw = w.layers[l];
            mhcMatrices[l] = new PackedCqMatrix[] {lw.phiPre(), lw.phiPost(), lw.phiRes()};
            attnMatrices[l] = new PackedCqMatrix[] {lw.q(), lw.k(), lw.v(), lw.gate()};
        }
        mhcOutputs = new float[][] {a.coef, a.coef, a.coef};
        attnOutputs = new float[][] {a.qkvg, a.qkvg, a.qkvg, a.qkvg};
        // the mHC norm is applied before the product, so the coefficients take no 1/rms after it
        a.inv[0] = 1f;
        mhcOffsets = new int[] {0, lanes, 2 * lanes};
        attnOffsets = new int[] {0, g.kAt(), g.vAt(), g.gateAt()};
        replayKey = new float[d];
        replayValue = new float[d];
    }

    @Override
    public void mhc(int layer, Activations a) {
        Norms.rmsUnit(arithmetic.sums(), a.x, 0, lanes * d, normedLanes, 0);
        mhcIn.prepare(normedLanes, 0);
        pool.matvec(mhcIn, mhcMatrices[layer], mhcOutputs, mhcOffsets);
    }

    @Override
    public void qkvg(int layer, Activations a) {
        attnIn.prepare(a.normed, 0);
        pool.matvec(attnIn, attnMatrices[layer], attnOutputs, attnOffsets);
    }

    @Override
    public void attend(int layer, Activations a) {
        KvCache cache = caches.cache(layer);
        int index = caches.index(layer);
        cache.write(index, a.first, a.qkvg, shape.kAt(), a.qkvg, shape.vAt());
        attention.attend(cache, index, a.first, a.qkvg, 0, a.attended, 0);
        AttentionGate.apply(shape, a.attended, 0, a.qkvg, shape.gateAt(), arithmetic.exp());
    }

    @Override
    public void out(int layer, Activations a) {
        attnOutIn.prepare(a.attended, 0);
        pool.matvec(attnOutIn, w.layers[layer].out(), a.attnOut);
    }

    @Override
    public void engram(int site, Activations a) {
        engrams[site].step(history, a.first, pool, a.engramKey, 0, a.engramValue, 0);
    }

    @Override
    public void logits(Activations a, int count) {
        logitIn.prepare(a.finalNorm, 0);
        pool.matvec(logitIn, w.logits, a.logits);
    }

    /**
     * Runs every engram site at {@code pos} (its token already in the history) for its ring of past values
     * alone: how a session that takes over a prompt computed elsewhere gets the rings its steps would have left.
     */
    void replayEngrams(int pos) {
        for (Engram e : engrams) e.step(history, pos, pool, replayKey, 0, replayValue, 0);
    }
}
