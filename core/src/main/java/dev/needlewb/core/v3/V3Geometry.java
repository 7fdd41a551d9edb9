package dev.needlewb.core.v3;

import dev.needlewb.core.generation.Generation;
import dev.needlewb.core.generation.ModelGeometry;
import java.util.Arrays;
import java.util.StringJoiner;

/**
 * The Needle 3 geometry a {@code .cact} header carries (upstream {@code usserwout/needle3}
 * export.py, struct {@code <48If}), every field as stored: {@code outVocabField} 0 means all
 * vocab rows, {@code slidingWindow} 0 means every layer global, {@code globalMask} is the 64-bit
 * {@code global_mask_lo | global_mask_hi << 32} (bits at or above num_layers kept, as upstream
 * writes them, though its reader drops them), engram orders and sites hold the used entries.
 */
public record V3Geometry(
        int vocab,
        int outVocabField,
        int dModel,
        int numHeads,
        int numKvHeads,
        int numLayers,
        int qkHeadDim,
        int vHeadDim,
        int maxSeqLen,
        int hadaN,
        int mhcLanes,
        int slidingWindow,
        long globalMask,
        int qkvConvTaps,
        int engramSlots,
        int engramSubDim,
        int numEngramTables,
        int engramConvTaps,
        int engramConvDilation,
        int engramSeedHeads,
        int[] engramOrders,
        int[] engramSites,
        float ropeTheta,
        int kvWindow,
        int kvBits) implements ModelGeometry {

    /** The header holds 4 engram orders, 16 sites and a 64-layer global mask. */
    public static final int MAX_ORDERS = 4;
    public static final int MAX_SITES = 16;
    public static final int MAX_LAYERS = 64;

    public V3Geometry {
        engramOrders = engramOrders.clone();
        engramSites = engramSites.clone();
    }

    /**
     * The released Needle 3 geometry (SPEC section 8, the published figures of needle3.cact):
     * d_model 768, 20 layers, 12/2 heads, qk 48 / v 64, window 1024 with global layers
     * 4/9/14/19, 3 conv taps, 6 engram tables of 128 and 18,432 slots at sites 3/7/11/15/19,
     * kv_window 256, kv_bits 8, max_seq_len 8192; vocab 8192 (implied by the published parameter
     * count) and out_vocab 0 (the config default: every row).
     */
    public static V3Geometry released() {
        return new V3Geometry(8192, 0, 768, 12, 2, 20, 48, 64, 8192, 1024, 4, 1024, mask(4, 9, 14, 19), 3,
                18432, 128, 6, 4, 3, 0, new int[] {2, 3}, new int[] {3, 7, 11, 15, 19}, 100000f, 256, 8);
    }

    /** The golden mini geometry (../shared/golden/v3mini). */
    public static V3Geometry mini() {
        return new V3Geometry(512, 512, 128, 4, 2, 4, 32, 48, 256, 128, 4, 16, mask(2), 3,
                256, 64, 2, 4, 3, 0, new int[] {2, 3}, new int[] {1, 3}, 100000f, 256, 8);
    }

    /** The global mask of these layers ({@code OR of 1 << g}, as upstream's _pack_cact builds it). */
    public static long mask(int... layers) {
        long m = 0;
        for (int l : layers) m |= 1L << l;
        return m;
    }

    /**
     * {@code g} as a Needle 3 geometry. Needle 3 code is reached through a generation's registry
     * entry, so another generation's geometry here is a bug, not bad input.
     */
    public static V3Geometry of(ModelGeometry g) {
        if (g instanceof V3Geometry v3) return v3;
        throw new IllegalArgumentException(g.generation() + " geometry where a Needle 3 one was expected");
    }

    @Override
    public Generation generation() {
        return Generation.NEEDLE3;
    }

    /** The logit rows: out_vocab, or vocab when the header stores 0. */
    @Override
    public int outVocab() {
        return outVocabField != 0 ? outVocabField : vocab;
    }

    @Override
    public int[] engramOrders() {
        return engramOrders.clone();
    }

    @Override
    public int[] engramSites() {
        return engramSites.clone();
    }

    public int numEngramSites() {
        return engramSites.length;
    }

    /** The global layers as upstream's read_export decodes them: the mask's bits below num_layers. */
    public int[] globalLayers() {
        int below = Math.min(Math.max(numLayers, 0), MAX_LAYERS);
        return java.util.stream.IntStream.range(0, below).filter(l -> (globalMask >>> l & 1) != 0).toArray();
    }

    /** The attention window of layer {@code l} as upstream's mask has it: 0 (every earlier key) on a global layer. */
    public int layerWindow(int l) {
        return isGlobalLayer(l) ? 0 : slidingWindow;
    }

    /** Engram heads per order: tables = orders x heads (0 without orders). */
    public int engramHeads() {
        return engramOrders.length == 0 ? 0 : numEngramTables / engramOrders.length;
    }

    /** The hash seed's stride between orders: engram_seed_heads, or the heads when it is 0. */
    public int engramSeedStride() {
        return engramSeedHeads != 0 ? engramSeedHeads : engramHeads();
    }

    /** Whether layer {@code l} attends to every earlier key: no window, or a global layer. */
    public boolean isGlobalLayer(int l) {
        return slidingWindow == 0 || (l < MAX_LAYERS && (globalMask >>> l & 1) != 0);
    }

    /** {@code 1024 (global layers [4, 9, 14, 19])} or {@code none (sliding_window 0: every layer global)}. */
    @Override
    public String slidingWindowText() {
        if (slidingWindow == 0) return "none (sliding_window 0: every layer global)";
        return Integer.toUnsignedString(slidingWindow) + " (global layers " + Arrays.toString(globalLayers()) + ")";
    }

    /** Rows of q_proj: {@code num_heads * qk_head_dim}. */
    public long qDim() {
        return (long) numHeads * qkHeadDim;
    }

    /** Rows of k_proj: {@code num_kv_heads * qk_head_dim}. */
    public long kDim() {
        return (long) numKvHeads * qkHeadDim;
    }

    /** Rows of v_proj: {@code num_kv_heads * v_head_dim}. */
    public long vDim() {
        return (long) numKvHeads * vHeadDim;
    }

    /** The attention output width: {@code num_heads * v_head_dim}. */
    public long attnOutDim() {
        return (long) numHeads * vHeadDim;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof V3Geometry g
                && vocab == g.vocab && outVocabField == g.outVocabField && dModel == g.dModel && numHeads == g.numHeads
                && numKvHeads == g.numKvHeads && numLayers == g.numLayers && qkHeadDim == g.qkHeadDim
                && vHeadDim == g.vHeadDim && maxSeqLen == g.maxSeqLen && hadaN == g.hadaN && mhcLanes == g.mhcLanes
                && slidingWindow == g.slidingWindow && globalMask == g.globalMask && qkvConvTaps == g.qkvConvTaps
                && engramSlots == g.engramSlots && engramSubDim == g.engramSubDim && numEngramTables == g.numEngramTables
                && engramConvTaps == g.engramConvTaps && engramConvDilation == g.engramConvDilation
                && engramSeedHeads == g.engramSeedHeads
                && Arrays.equals(engramOrders, g.engramOrders) && Arrays.equals(engramSites, g.engramSites)
                && Float.floatToIntBits(ropeTheta) == Float.floatToIntBits(g.ropeTheta)
                && kvWindow == g.kvWindow && kvBits == g.kvBits;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(new int[] {vocab, dModel, numLayers, numHeads, numKvHeads, qkHeadDim, vHeadDim,
            Long.hashCode(globalMask), Arrays.hashCode(engramOrders), Arrays.hashCode(engramSites), kvWindow, kvBits});
    }

    @Override
    public String toString() {
        StringJoiner s = new StringJoiner(", ", "V3Geometry[", "]");
        s.add("vocab=" + vocab).add("out_vocab=" + outVocabField).add("d_model=" + dModel)
                .add("heads=" + numHeads + "/" + numKvHeads).add("layers=" + numLayers)
                .add("qk/v=" + qkHeadDim + "/" + vHeadDim).add("max_seq_len=" + maxSeqLen).add("hada_n=" + hadaN)
                .add("lanes=" + mhcLanes).add("sliding_window=" + slidingWindowText()).add("qkv_conv_taps=" + qkvConvTaps)
                .add("engram slots=" + engramSlots + " sub_dim=" + engramSubDim + " tables=" + numEngramTables
                        + " orders=" + Arrays.toString(engramOrders) + " sites=" + Arrays.toString(engramSites)
                        + " seed_heads=" + engramSeedHeads)
                .add("rope_theta=" + ropeTheta).add("kv_window=" + Integer.toUnsignedString(kvWindow)).add("kv_bits=" + kvBits);
        return s.toString();
    }
}
