package dev.needlewb.engine;

/**
 * What the one {@link Forward} leaves to its case: the matrix products, the attention over the keys and
 * values, and the engram's gathered projections. Each reads and writes the rows of {@link Activations}.
 * {@link PackedKernels}: one position, packed CQ matrix-vector products in the session's numeric mode,
 * attention over the session's cache. {@link DenseKernels}: a prompt's positions from 0 as float32 GEMMs on
 * dense weights, attention over the prompt's own keys and values, which it hands to the session's cache.
 */
interface Kernels {
    /** {@code coef} = the mHC projections of the lanes {@code x}, {@code inv} = the 1/rms of {@code x} still to apply to them (1 when applied before). */
    void mhc(int layer, Activations a);

    /** {@code qkvg} = the attention projections of {@code normed}. */
    void qkvg(int layer, Activations a);

    /**
     * Stores the rows' keys and values ({@code qkvg}'s k and v, k normalized and rotated) and writes the
     * gated attention of their queries into {@code attended}: {@code attention(q) * sigmoid(gate)}.
     */
    void attend(int layer, Activations a);

    /** {@code attnOut} = the output projection of {@code attended}. */
    void out(int layer, Activations a);

    /** {@code engramKey}, {@code engramValue} = engram site {@code site}'s key and conv-mixed value at the rows' positions. */
    void engram(int site, Activations a);

    /** {@code logits} = the tied projection of the first {@code count} rows of {@code finalNorm}. */
    void logits(Activations a, int count);
}
