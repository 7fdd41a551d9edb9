package dev.needlewb.engine;

import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.core.v3.V3Geometry;
import dev.needlewb.engine.layer.Engram;

/**
 * What the engine's one {@link Forward} needs to know of a model, whichever generation's header it came
 * from: the widths (query/key heads of {@code qkHeadDim}, value heads of {@code vHeadDim}), the QKV conv
 * taps (0: none), the attention window of every layer as the header means it ({@code headerWindows};
 * 0 = every earlier position), the rows of the logit projection, the MLP kind, the engram hashing. Needle 2
 * has one head dim, no conv, a Hadamard MLP, and attends as the session's window says; Needle 3 follows
 * upstream's mask: {@code sliding_window} on its local layers, everything on its global ones, no sinks.
 */
record EngineShape(
        ModelGeometry geometry,
        int vocab,
        int outVocab,
        int dModel,
        int numLayers,
        int mhcLanes,
        int numHeads,
        int numKvHeads,
        int qkHeadDim,
        int vHeadDim,
        int hadaN,
        float ropeTheta,
        int convTaps,
        int[] headerWindows,
        boolean headwiseGate,
        Mlp mlp,
        Engram.Tables engramTables,
        int engramConvTaps,
        int engramConvDilation,
        int[] engramSites,
        int maxSeqLen,
        int kvBits) {

    /** The MLP of every block. */
    enum Mlp {
        /** Needle 2: {@code d1 pad(x)} through the Walsh transform, SiLU, the transform again, {@code d3}. */
        HADAMARD,
        /** Needle 3: three Kronecker-factored stages with fixed permutations and the rank-8 conditioner. */
        KRONECKER
    }

    /** A Needle 2 shape: every layer's header window is the kv_window's meaning ({@link Geometry#slidingWindow}). */
    static EngineShape of(Geometry g) {
        int[] windows = new int[g.numLayers()];
        java.util.Arrays.fill(windows, g.slidingWindow());
        return new EngineShape(g, g.vocab(), g.vocab(), g.dModel(), g.numLayers(), g.mhcLanes(), g.numHeads(), g.numKvHeads(), g.headDim(),
                g.headDim(), g.hadaN(), g.ropeTheta(), 0, windows, false, Mlp.HADAMARD,
                new Engram.Tables(g.engramOrders(), g.engramHeads(), g.engramHeads(), g.engramSlots()), g.engramConvTaps(),
                g.engramConvDilation(), g.engramSites(), g.maxSeqLen(), g.kvBits());
    }

    /** A Needle 3 shape; {@code headwiseGate} is what the file's gate_proj shape says ({@code [H, d]}), which no header field records. */
    static EngineShape of(V3Geometry g, boolean headwiseGate) {
        int[] windows = new int[g.numLayers()];
        java.util.Arrays.setAll(windows, g::layerWindow);
        return new EngineShape(g, g.vocab(), g.outVocab(), g.dModel(), g.numLayers(), g.mhcLanes(), g.numHeads(), g.numKvHeads(),
                g.qkHeadDim(), g.vHeadDim(), g.hadaN(), g.ropeTheta(), g.qkvConvTaps(), windows, headwiseGate, Mlp.KRONECKER,
                new Engram.Tables(g.engramOrders(), g.engramHeads(), g.engramSeedStride(), g.engramSlots()), g.engramConvTaps(), g.engramConvDilation(),
                g.engramSites(), g.maxSeqLen(), g.kvBits());
    }

    EngineShape {
        headerWindows = headerWindows.clone();
        engramSites = engramSites.clone();
    }

    int qDim() {
        return numHeads * qkHeadDim;
    }

    int kDim() {
        return numKvHeads * qkHeadDim;
    }

    int vDim() {
        return numKvHeads * vHeadDim;
    }

    /** The attention output before its projection: every query head's value-width result. */
    int attnDim() {
        return numHeads * vHeadDim;
    }

    /** The gate projection's width: one per attention output, or one per head. */
    int gateDim() {
        return headwiseGate ? numHeads : attnDim();
    }

    /** The projections of a row, {@code q | k | v | gate}. */
    int qkvgDim() {
        return qDim() + kDim() + vDim() + gateDim();
    }

    /** Where k, v and the gate start in a row of projections. */
    int kAt() {
        return qDim();
    }

    int vAt() {
        return qDim() + kDim();
    }

    int gateAt() {
        return qDim() + kDim() + vDim();
    }

    int numEngramSites() {
        return engramSites.length;
    }

    /** Whether the model's own mask sets the attention windows (Needle 3) rather than the session's options (Needle 2). */
    boolean maskedByModel() {
        return !EngineGenerations.takesKvWindow(geometry);
    }

    /** The engram site of every layer, or -1. */
    int[] siteOfLayer() {
        int[] site = new int[numLayers];
        java.util.Arrays.fill(site, -1);
        for (int s = 0; s < engramSites.length; s++) site[engramSites[s]] = s;
        return site;
    }

    /** The index of the first engram site that repeats an earlier one's layer, or -1. */
    int repeatedSite() {
        return dev.needlewb.core.generation.EngramSites.firstRepeated(engramSites);
    }

    /** Tap name prefixes, {@code layerNN.}. */
    String[] layerNames() {
        String[] names = new String[numLayers];
        java.util.Arrays.setAll(names, l -> String.format("layer%02d.", l));
        return names;
    }
}
