package dev.needlewb.engine;

import dev.needlewb.engine.ForwardTaps.Block;
import dev.needlewb.engine.kernel.RowPool;
import dev.needlewb.engine.layer.Arithmetic;
import dev.needlewb.engine.layer.Engram;
import dev.needlewb.engine.layer.Mhc;
import dev.needlewb.engine.layer.Norms;
import dev.needlewb.engine.layer.QkvConv;
import dev.needlewb.engine.layer.Rope;
import dev.needlewb.engine.layer.Rows;
import dev.needlewb.engine.layer.Sinkhorn;
import dev.needlewb.engine.probe.CellPool;

/**
 * The engine's forward (SPEC section 3; upstream {@code decode._forward_cached} without fake quantization)
 * of the tokens at consecutive positions: the scaled embedding in every lane, each block (the mHC
 * coefficients and block input, the engram injection at a site, attention, the MLP, the mHC
 * update), the mean of the lanes through the final norm to the logits. The same order runs both
 * generations ({@link EngineShape}): Needle 3 adds the QKV conv between the projections and the head norms
 * ({@link QkvConv}, its history the sequence's), value heads of their own width, a per-head gate, its
 * Kronecker MLP and the logits of the first out_vocab rows. This is the one place that
 * order is written, for one position (a session's step) and many (a batch prefill); the matrix
 * products and the attention over keys and values are the {@link Kernels} of the case, and the
 * passes between them round as the {@link Arithmetic} says.
 *
 * <p>Every pass between the products runs row by row, each row whole on one thread, split over the
 * {@link RowPool}'s threads when there are enough rows ({@link RowPool#ranges}); a single row runs on the
 * caller. The passes are fields made once, so a step allocates nothing for them.
 */
final class Forward {
    private final ModelWeights w;
    private final Arithmetic.Sums sums;
    private final RowPool pool;
    private final Kernels kernels;
    private final Activations a;
    private final ForwardTaps taps;
    private final Rope rope;
    private final int[] siteOfLayer;
    private final QkvConv conv;
    private final Arithmetic.Exponential exp;
    private final int layers, d, lanes, heads, kvHeads, qkHeadDim, vHeadDim, kAt, vAt, qkvgDim, coefWidth, outVocab;
    private final float embedScale;
    private final float[] embedScratch;
    /** Per thread: the MLP's scratch, the mHC residual logits. */
    private final float[][] mlpScratch;
    private final float[][] resLogits;
    /** The probe heads' pool of the sequence's hidden cells (null: no head asked for) and the lane mean it is handed. */
    private CellPool cells;
    private final float[] cellMean;

    /** The block the passes run, and its attention gate {@code sigmoid(attn_gate)}. */
    private int layer;
    private LayerWeights lw;
    private float attnGate;
    private final RowPool.Ranges blockInput = this::blockInput, engramGate = this::engramGate, attnNorm = this::attnNorm,
            convolve = this::convolve, headNorms = this::headNorms, attnResidual = this::attnResidual, mlp = this::mlp,
            update = this::update;

    /** {@code conv}: the sequence's QKV conv state, null when the model has none. */
    Forward(ModelWeights w, Arithmetic arithmetic, RowPool pool, Kernels kernels, Activations a, ForwardTaps taps, QkvConv conv) {
        EngineShape g = w.s;
        this.w = w;
        this.conv = conv;
        this.exp = arithmetic.exp();
        this.sums = arithmetic.sums();
        this.pool = pool;
        this.kernels = kernels;
        this.a = a;
        this.taps = taps;
        layers = g.numLayers();
        d = g.dModel();
        lanes = g.mhcLanes();
        heads = g.numHeads();
        kvHeads = g.numKvHeads();
        qkHeadDim = g.qkHeadDim();
        vHeadDim = g.vHeadDim();
        kAt = g.kAt();
        vAt = g.vAt();
        qkvgDim = g.qkvgDim();
        outVocab = g.outVocab();
        coefWidth = 2 * lanes + lanes * lanes;
        embedScale = (float) Math.sqrt(d);
        embedScratch = new float[w.embedding.decodeScratchLength()];
        rope = new Rope(qkHeadDim, g.ropeTheta(), a.rows);
        siteOfLayer = g.siteOfLayer();
        int scratch = 0;
        for (LayerWeights lw : w.layers) scratch = Math.max(scratch, lw.mlp().scratchLength());
        mlpScratch = new float[pool.threads()][scratch];
        resLogits = new float[pool.threads()][lanes * lanes];
        cellMean = new float[d];
    }

    /** From the next run on, hands every non-PAD position's hidden cells to {@code pool} (null: to nobody). */
    void poolCells(CellPool pool) {
        this.cells = pool;
    }

    /**
     * Runs {@code tokens[0, rows)} at positions {@code first, first + 1, ...} and, when {@code logits}, the
     * final norm and logits of the last {@link Activations#logitRows} rows into {@link Activations#logits}.
     */
    void run(int[] tokens, int first, boolean logits) {
        a.first = first;
        taps.positions(first, a.rows);
        rope.moveTo(first);
        embed(tokens);
        if (cells != null) poolCells(0, tokens, a.u, 1);
        for (int l = 0; l < layers; l++) {
            block(l);
            if (cells != null) poolCells(l + 1, tokens, a.x, lanes);
        }
        if (logits) logits();
    }

    /**
     * Upstream's hidden cells of row {@code cellRow} (0: the scaled embedding, {@code l + 1}: the lane mean
     * after layer {@code l}) of every row but PAD's, into the probe heads' pool, position by position.
     */
    private void poolCells(int cellRow, int[] tokens, float[] x, int lanesOf) {
        for (int r = 0; r < a.rows; r++) {
            if (tokens[r] == CellPool.PAD_ID) continue;
            Mhc.mean(x, r * lanesOf * d, lanesOf, d, cellMean, 0);
            cells.add(cellRow, cellMean, 0);
        }
    }

    /** {@code sqrt(d) E[token]} in every lane. */
    private void embed(int[] tokens) {
        for (int r = 0; r < a.rows; r++) {
            w.embedding.decodeRow(tokens[r], a.u, r * d, embedScratch);
            for (int i = r * d; i < (r + 1) * d; i++) a.u[i] *= embedScale;
        }
        taps.record("embed", a.u, 0, d, d);
        for (int r = 0; r < a.rows; r++) {
            for (int lane = 0; lane < lanes; lane++) System.arraycopy(a.u, r * d, a.x, (r * lanes + lane) * d, d);
        }
    }

    private void block(int l) {
        layer = l;
        lw = w.layers[l];
        attnGate = Norms.sigmoid(lw.attnGate());
        taps.record(l, Block.LANES_IN, a.x, 0, lanes * d, lanes, d);

        // mHC: the coefficients from the projections of the lanes, u = sum_j hpre_j X_j, bx = u.
        kernels.mhc(l, a);
        pool.ranges(a.rows, blockInput);
        taps.record(l, Block.HPRE, a.hpre, 0, lanes, lanes);
        taps.record(l, Block.U, a.u, 0, d, d);

        int site = siteOfLayer[l];
        if (site >= 0) {
            kernels.engram(site, a);
            pool.ranges(a.rows, engramGate);
            taps.record(l, Block.ENGRAM_ALPHA, a.alpha, 0, 1, 1);
        }

        // Attention with its zero-centred norms: bx += sigmoid(attn_gate) ZCN(attention(ZCN(bx))).
        pool.ranges(a.rows, attnNorm);
        kernels.qkvg(l, a);
        if (conv != null) {
            int width = conv.width();
            for (int r = 0; r < a.rows; r++) System.arraycopy(a.qkvg, r * qkvgDim, a.qkvRaw, r * width, width);
            pool.ranges(a.rows, convolve);
            conv.remember(l, a.qkvRaw, a.first, a.rows);
            taps.record(l, Block.ATTN_Q_CONV, a.qkvg, 0, qkvgDim, kAt);
            taps.record(l, Block.ATTN_K_CONV, a.qkvg, kAt, qkvgDim, vAt - kAt);
            taps.record(l, Block.ATTN_V_CONV, a.qkvg, vAt, qkvgDim, width - vAt);
        }
        pool.ranges(a.rows, headNorms);
        taps.record(l, Block.ATTN_Q, a.qkvg, 0, qkvgDim, heads, qkHeadDim);
        taps.record(l, Block.ATTN_K, a.qkvg, kAt, qkvgDim, kvHeads, qkHeadDim);
        taps.record(l, Block.ATTN_V, a.qkvg, vAt, qkvgDim, kvHeads, vHeadDim);
        kernels.attend(l, a);
        kernels.out(l, a);
        taps.record(l, Block.ATTN_OUT, a.attnOut, 0, d, d);
        pool.ranges(a.rows, attnResidual);

        pool.ranges(a.rows, mlp);
        taps.record(l, Block.MLP_IN, a.normed, 0, d, d);
        taps.record(l, Block.MLP_OUT, a.mlpOut, 0, d, d);
        taps.record(l, Block.BLOCK_OUT, a.bx, 0, d, d);

        // The mHC update: X = sinkhorn(A) X + hpost (bx - u).
        taps.record(l, Block.HPOST, a.hpost, 0, lanes, lanes);
        taps.record(l, Block.SINKHORN, a.mix, 0, lanes * lanes, lanes, lanes);
        pool.ranges(a.rows, update);
        a.swapLanes();
        taps.record(l, Block.LANES_OUT, a.x, 0, lanes * d, lanes, d);
    }

    /** Per row: hpre, hpost, the Sinkhorn matrix; {@code u} and the block input {@code bx = u}. */
    private void blockInput(int from, int to, int thread) {
        float[] logits = resLogits[thread];
        for (int r = from; r < to; r++) {
            int c = r * coefWidth;
            Mhc.coefficients(w.mhc, layer, a.coef, c, a.coef, c + lanes, a.coef, c + 2 * lanes, a.inv[r], a.hpre, r * lanes, a.hpost,
                    r * lanes, logits, 0);
            Sinkhorn.apply(logits, lanes, a.mix, r * lanes * lanes);
            Mhc.combine(a.x, r * lanes * d, lanes, d, a.hpre, r * lanes, a.u, r * d);
            System.arraycopy(a.u, r * d, a.bx, r * d, d);
        }
    }

    /** Per row: {@code bx += gate(u, k) v} with the site's engram key and conv-mixed value. */
    private void engramGate(int from, int to, int thread) {
        for (int r = from; r < to; r++) {
            a.alpha[r] = Engram.gate(a.u, r * d, a.engramKey, r * d, d, sums);
            Rows.addScaled(a.bx, r * d, a.alpha[r], a.engramValue, r * d, d);
        }
    }

    private void attnNorm(int from, int to, int thread) {
        for (int r = from; r < to; r++) Norms.zcn(sums, a.bx, r * d, d, lw.normIn(), 0, a.normed, r * d);
    }

    /** Per row: the QKV conv of the raw projections into q | k | v. */
    private void convolve(int from, int to, int thread) {
        for (int r = from; r < to; r++) conv.apply(layer, lw.qkvTaps(), a.qkvRaw, a.first, r, a.qkvg, r * qkvgDim);
    }

    /** Per row: the query and key heads' norms and rotation, in place. */
    private void headNorms(int from, int to, int thread) {
        for (int r = from; r < to; r++) {
            int at = r * qkvgDim;
            for (int h = 0; h < heads; h++) Norms.zcn(sums, a.qkvg, at + h * qkHeadDim, qkHeadDim, lw.qNorm(), 0, a.qkvg, at + h * qkHeadDim);
            for (int h = 0; h < kvHeads; h++) {
                int k = at + kAt + h * qkHeadDim;
                Norms.zcn(sums, a.qkvg, k, qkHeadDim, lw.kNorm(), 0, a.qkvg, k);
            }
            rope.apply(a.qkvg, at, heads, r);
            rope.apply(a.qkvg, at + kAt, kvHeads, r);
        }
    }

    private void attnResidual(int from, int to, int thread) {
        for (int r = from; r < to; r++) {
            Norms.zcn(sums, a.attnOut, r * d, d, lw.postNorm(), 0, a.attnOut, r * d);
            Rows.addScaled(a.bx, r * d, attnGate, a.attnOut, r * d, d);
        }
    }

    /** Per row: the MLP residual {@code bx += mlp(ZCN(bx))}. */
    private void mlp(int from, int to, int thread) {
        float[] scratch = mlpScratch[thread];
        for (int r = from; r < to; r++) {
            Norms.zcn(sums, a.bx, r * d, d, lw.preHada(), 0, a.normed, r * d);
            lw.mlp().apply(a.normed, r * d, a.mlpOut, r * d, scratch, exp);
            Rows.add(a.bx, r * d, a.mlpOut, r * d, d);
        }
    }

    private void update(int from, int to, int thread) {
        for (int r = from; r < to; r++) {
            int at = r * lanes * d;
            Mhc.update(a.x, at, lanes, d, a.mix, r * lanes * lanes, a.hpost, r * lanes, a.bx, a.u, r * d, a.next, at);
        }
    }

    /** {@code ZCN(mean of the lanes)} and the logits of the last {@link Activations#logitRows} rows. */
    private void logits() {
        int count = a.logitRows, skipped = a.rows - count;
        for (int r = 0; r < count; r++) {
            Mhc.mean(a.x, (skipped + r) * lanes * d, lanes, d, a.finalNorm, r * d);
            Norms.zcn(sums, a.finalNorm, r * d, d, w.finalNorm, 0, a.finalNorm, r * d);
        }
        taps.recordLast("final.norm", count, a.finalNorm, d);
        kernels.logits(a, count);
        taps.recordLast("logits", count, a.logits, outVocab);
    }
}
