package dev.needlewb.engine;

/**
 * The activations of one forward over {@code rows} consecutive positions: row-major arrays, row {@code r}
 * for position {@link #first}{@code + r}. A session holds one of a single row for all its steps; a batch
 * prefill one per prompt.
 */
final class Activations {
    final int rows;
    /** Rows whose final norm and logits are computed: the last ones. */
    final int logitRows;
    /** The position of row 0. */
    int first;
    /** The lanes [rows, lanes * d] entering the block, and those its update writes. */
    float[] x, next;
    /** The mHC projections [rows, 2 lanes + lanes^2] (pre | post | res) and the 1/rms still to apply to them [rows]. */
    final float[] coef, inv;
    /** The mHC coefficients: pre and post [rows, lanes], the Sinkhorn mixing matrix [rows, lanes^2]. */
    final float[] hpre, hpost, mix;
    /** [rows, d]: the block input, the block's running output, a norm's output, the MLP's output. */
    final float[] u, bx, normed, mlpOut;
    /** An engram site's key and conv-mixed value [rows, d] and its gate [rows]. */
    final float[] engramKey, engramValue, alpha;
    /** The attention projections [rows, q | k | v | gate], the gated attention [rows, heads * v_head_dim], its output projection [rows, d]. */
    final float[] qkvg, attended, attnOut;
    /** The raw q | k | v projections [rows, q_dim + k_dim + v_dim] the QKV conv reads (empty without a conv). */
    final float[] qkvRaw;
    /** The final norm [logitRows, d] and the logits [logitRows, out_vocab]. */
    final float[] finalNorm, logits;

    Activations(EngineShape g, int rows, int logitRows) {
        int d = g.dModel(), lanes = g.mhcLanes();
        this.rows = rows;
        this.logitRows = logitRows;
        x = new float[rows * lanes * d];
        next = new float[rows * lanes * d];
        coef = new float[rows * (2 * lanes + lanes * lanes)];
        inv = new float[rows];
        hpre = new float[rows * lanes];
        hpost = new float[rows * lanes];
        mix = new float[rows * lanes * lanes];
        u = new float[rows * d];
        bx = new float[rows * d];
        normed = new float[rows * d];
        mlpOut = new float[rows * d];
        engramKey = new float[g.numEngramSites() == 0 ? 0 : rows * d];
        engramValue = new float[engramKey.length];
        alpha = new float[rows];
        qkvg = new float[rows * g.qkvgDim()];
        qkvRaw = new float[g.convTaps() == 0 ? 0 : rows * g.vAt() + rows * g.vDim()];
        attended = new float[rows * g.attnDim()];
        attnOut = new float[rows * d];
        finalNorm = new float[logitRows * d];
        logits = new float[logitRows * g.outVocab()];
    }

    /** The update's lanes become the next block's input. */
    void swapLanes() {
        float[] swap = x;
        x = next;
        next = swap;
    }
}
