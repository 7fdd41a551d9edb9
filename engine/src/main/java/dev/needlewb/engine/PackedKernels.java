package dev.needlewb.engine;

import dev.needlewb.core.v2.Geometry;
import dev.needlewb.engine.cache.KvCache;
import dev.needlewb.engine.cache.TokenHistory;
import dev.needlewb.engine.kernel.Activation;
import dev.needlewb.engine.kernel.NumericMode;
import dev.needlewb.engine.kernel.PackedCqMatrix;
import dev.needlewb.engine.kernel.RowPool;
import dev.needlewb.engine.layer.Arithmetic;
import dev.needlewb.engine.layer.Attention;
import dev.needlewb.engine.layer.Engram;
import dev.needlewb.engine.layer.Norms;
import dev.needlewb.engine.layer.Rows;

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
    private final KvCache cache;
    private final TokenHistory history;
    private final Attention attention;
    private final Engram[] engrams;
    private final int d, lanes, qDim, kvDim;
    private final Activation mhcIn, attnIn, attnOutIn, logitIn;
    private final float[] normedLanes;
    private final PackedCqMatrix[][] mhcMatrices, attnMatrices;
    /** The outputs of a shared-input job: every matrix writes into one row, from its offset. */
    private final float[][] mhcOutputs = new float[3][], attnOutputs = new float[4][];
    private final int[] mhcOffsets, attnOffsets;
    /** The engram key and value a prompt taken over computes only to refill the rings. */
    private final float[] replayKey, replayValue;

    PackedKernels(ModelWeights w, NumericMode mode, RowPool pool, KvCache cache, TokenHistory history) {
        Geometry g = w.g;
        this.w = w;
        this.arithmetic = Arithmetic.of(mode);
        this.pool = pool;
        this.cache = cache;
        this.history = history;
        d = g.dModel();
        lanes = g.mhcLanes();
        qDim = g.qDim();
        kvDim = g.kvDim();
        attention = new Attention(g.numHeads(), g.numKvHeads(), g.headDim(), pool, arithmetic.exp());
        Engram.Tables tables = ModelWeights.engramTables(g);
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
        mhcOffsets = new int[] {0, lanes, 2 * lanes};
        attnOffsets = new int[] {0, qDim, qDim + kvDim, qDim + 2 * kvDim};
        replayKey = new float[d];
        replayValue = new float[d];
    }

    @Override
    public void mhc(int layer, Activations a) {
        Norms.rmsUnit(arithmetic.sums(), a.x, 0, lanes * d, normedLanes, 0);
        mhcIn.prepare(normedLanes, 0);
        java.util.Arrays.fill(mhcOutputs, a.coef);
        pool.matvec(mhcIn, mhcMatrices[layer], mhcOutputs, mhcOffsets);
        a.inv[0] = 1f;
    }

    @Override
    public void qkvg(int layer, Activations a) {
        attnIn.prepare(a.normed, 0);
        java.util.Arrays.fill(attnOutputs, a.qkvg);
        pool.matvec(attnIn, attnMatrices[layer], attnOutputs, attnOffsets);
    }

    @Override
    public void attend(int layer, Activations a) {
        cache.write(layer, a.first, a.qkvg, qDim, a.qkvg, qDim + kvDim);
        attention.attend(cache, layer, a.first, a.qkvg, 0, a.attended, 0);
        Rows.gate(a.attended, 0, a.qkvg, qDim + 2 * kvDim, arithmetic.exp(), a.attended, 0, qDim);
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
        pool.matvec(logitIn, w.embedding, a.logits);
    }

    /**
     * Runs every engram site at {@code pos} (its token already in the history) for its ring of past values
     * alone: how a session that takes over a prompt computed elsewhere gets the rings its steps would have left.
     */
    void replayEngrams(int pos) {
        for (Engram e : engrams) e.step(history, pos, pool, replayKey, 0, replayValue, 0);
    }
}
