package dev.needlewb.core.v2;

import dev.needlewb.core.generation.Generation;
import dev.needlewb.core.generation.ModelGeometry;
import java.util.Arrays;

/**
 * The Needle 2 architecture geometry a {@code .cact} header carries (SPEC section 5), plus the two
 * deployment fields kv_window and kv_bits. Engram orders and sites hold only the used entries.
 */
public record Geometry(
        int vocab,
        int dModel,
        int numHeads,
        int numKvHeads,
        int numLayers,
        int headDim,
        int maxSeqLen,
        int hadaN,
        int mhcLanes,
        int engramSlots,
        int engramSubDim,
        int numEngramTables,
        int engramConvTaps,
        int engramConvDilation,
        int[] engramOrders,
        int[] engramSites,
        float ropeTheta,
        int kvWindow,
        int kvBits) implements ModelGeometry {

    /** At most this many engram orders and sites fit in the header. */
    public static final int MAX_ORDERS = 4;
    public static final int MAX_SITES = 4;

    public Geometry {
        engramOrders = engramOrders.clone();
        engramSites = engramSites.clone();
    }

    /** The released Needle 2 geometry (SPEC section 1). */
    public static Geometry needle2() {
        return new Geometry(8192, 512, 8, 4, 27, 64, 2048, 512, 4, 8192, 128, 4, 4, 3,
                new int[] {2, 3}, new int[] {2, 15}, 100000f, 256, 8);
    }

    /** The golden "mini" geometry (../shared/golden/mini). */
    public static Geometry mini() {
        return new Geometry(512, 128, 4, 2, 6, 32, 256, 128, 4, 256, 64, 2, 4, 3,
                new int[] {2, 3}, new int[] {1, 4}, 100000f, 256, 8);
    }

    /**
     * {@code g} as a Needle 2 geometry. Needle 2 code is reached through a generation's registry
     * entry, so another generation's geometry here is a bug, not bad input.
     */
    public static Geometry of(ModelGeometry g) {
        if (g instanceof Geometry v2) return v2;
        throw new IllegalArgumentException(g.generation() + " geometry where a Needle 2 one was expected");
    }

    @Override
    public Generation generation() {
        return Generation.NEEDLE2;
    }

    /** Needle 2 ties its logits to the whole embedding: vocab rows. */
    @Override
    public int outVocab() {
        return vocab;
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

    /**
     * The index of the first engram site that repeats an earlier one's layer, or -1. Upstream
     * allows it (Stack adds every site's injection at its layer); the workbench's forwards inject
     * one site per layer.
     */
    public int repeatedSite() {
        return dev.needlewb.core.generation.EngramSites.firstRepeated(engramSites);
    }

    /** Engram heads per order: tables = orders x heads. */
    public int engramHeads() {
        return engramOrders.length == 0 ? 0 : numEngramTables / engramOrders.length;
    }

    /**
     * The sliding window the header's kv_window means over this model's context: kv_window when
     * it is below max_seq_len, else 0 (none). kv_window 0 stores no window, and a window of
     * max_seq_len or more never binds (upstream's kv_budget_window is at least 160 whatever the
     * context, so the export of a small model carries a window longer than its context). The
     * field is compared unsigned, as the header stores it.
     */
    public int slidingWindow() {
        return kvWindow != 0 && Integer.compareUnsigned(kvWindow, maxSeqLen) < 0 ? kvWindow : 0;
    }

    /** {@link #slidingWindow} for a reader: {@code 256}, {@code none (kv_window 160 >= max_seq_len 128)} or {@code none (kv_window 0)}. */
    @Override
    public String slidingWindowText() {
        if (slidingWindow() != 0) return Integer.toString(kvWindow);
        if (kvWindow == 0) return "none (kv_window 0)";
        return "none (kv_window " + Integer.toUnsignedString(kvWindow) + " >= max_seq_len " + maxSeqLen + ")";
    }

    public int qDim() {
        return numHeads * headDim;
    }

    public int kvDim() {
        return numKvHeads * headDim;
    }

    public Geometry withKv(int window, int bits) {
        return new Geometry(vocab, dModel, numHeads, numKvHeads, numLayers, headDim, maxSeqLen, hadaN,
                mhcLanes, engramSlots, engramSubDim, numEngramTables, engramConvTaps, engramConvDilation,
                engramOrders, engramSites, ropeTheta, window, bits);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Geometry g
                && vocab == g.vocab && dModel == g.dModel && numHeads == g.numHeads
                && numKvHeads == g.numKvHeads && numLayers == g.numLayers && headDim == g.headDim
                && maxSeqLen == g.maxSeqLen && hadaN == g.hadaN && mhcLanes == g.mhcLanes
                && engramSlots == g.engramSlots && engramSubDim == g.engramSubDim
                && numEngramTables == g.numEngramTables && engramConvTaps == g.engramConvTaps
                && engramConvDilation == g.engramConvDilation
                && Arrays.equals(engramOrders, g.engramOrders) && Arrays.equals(engramSites, g.engramSites)
                && Float.floatToIntBits(ropeTheta) == Float.floatToIntBits(g.ropeTheta)
                && kvWindow == g.kvWindow && kvBits == g.kvBits;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(new int[] {vocab, dModel, numLayers, numHeads, numKvHeads, headDim,
            Arrays.hashCode(engramOrders), Arrays.hashCode(engramSites), kvWindow, kvBits});
    }

    @Override
    public String toString() {
        return "Geometry[vocab=" + vocab + ", d_model=" + dModel + ", heads=" + numHeads + "/" + numKvHeads
                + ", layers=" + numLayers + ", head_dim=" + headDim + ", max_seq_len=" + maxSeqLen
                + ", hada_n=" + hadaN + ", lanes=" + mhcLanes + ", engram slots=" + engramSlots
                + " sub_dim=" + engramSubDim + " tables=" + numEngramTables + " orders="
                + Arrays.toString(engramOrders) + " sites=" + Arrays.toString(engramSites)
                + ", rope_theta=" + ropeTheta + ", kv_window=" + Integer.toUnsignedString(kvWindow) + ", kv_bits=" + kvBits + "]";
    }
}
