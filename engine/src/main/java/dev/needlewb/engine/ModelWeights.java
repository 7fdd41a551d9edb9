package dev.needlewb.engine;

import dev.needlewb.converter.FormatException;
import dev.needlewb.converter.cact.CactDType;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.converter.cq.CqPacking;
import dev.needlewb.converter.model.Geometry;
import dev.needlewb.engine.kernel.Activation;
import dev.needlewb.engine.kernel.CodeLayout;
import dev.needlewb.engine.kernel.PackedCqMatrix;
import dev.needlewb.engine.layer.Engram;
import dev.needlewb.engine.layer.MhcWeights;

/**
 * The weights of a {@code .cact} as the engine runs them: every CQ matrix is a {@link PackedCqMatrix}
 * view over the mapped file (no dense copy); only the FP16 vectors (norm gains, Hadamard diagonals,
 * mHC scalars, engram taps; a few hundred KB for the released model) are widened to float32.
 */
final class ModelWeights {
    final Geometry g;
    final PackedCqMatrix embedding;
    final LayerWeights[] layers;
    final MhcWeights mhc;
    final Engram.Weights[] engrams;
    final float[] finalNorm;

    private final CactFile file;

    ModelWeights(CactFile file) throws FormatException {
        this.file = file;
        this.g = file.geometry();
        embedding = cq("embedding");
        mhc = new MhcWeights(g.mhcLanes(), fp("mhc_a_pre"), fp("mhc_a_post"), fp("mhc_a_res"), fp("mhc_b_pre"), fp("mhc_b_post"),
                fp("mhc_b_res"));
        PackedCqMatrix phiPre = cq("mhc_phi_pre"), phiPost = cq("mhc_phi_post"), phiRes = cq("mhc_phi_res");
        int n = g.mhcLanes();
        layers = new LayerWeights[g.numLayers()];
        for (int i = 0; i < layers.length; i++) {
            String p = String.format("layer%02d.", i);
            layers[i] = new LayerWeights(fp(p + "norm_in"), cq(p + "q_proj"), cq(p + "k_proj"), cq(p + "v_proj"),
                    fp(p + "q_norm"), fp(p + "k_norm"), cq(p + "gate_proj"), cq(p + "out_proj"), fp(p + "post_norm"),
                    fp(p + "attn_gate")[0], fp(p + "pre_hada"), fp(p + "d1"), fp(p + "d2"), fp(p + "d3"),
                    phiPre.rowSlice(i * n, n), phiPost.rowSlice(i * n, n), phiRes.rowSlice(i * n * n, n * n));
            sameInput(p + "q_proj", layers[i].q(), layers[i].k(), layers[i].v(), layers[i].gate());
        }
        sameInput("mhc_phi_pre", phiPre, phiPost, phiRes);
        engrams = new Engram.Weights[g.numEngramSites()];
        for (int s = 0; s < engrams.length; s++) {
            String p = "engram" + s + ".";
            engrams[s] = new Engram.Weights(cq(p + "tables"), cq(p + "key_proj"), cq(p + "value_proj"), fp(p + "taps"));
            sameInput(p + "key_proj", engrams[s].key(), engrams[s].value());
        }
        finalNorm = fp("final_norm");
    }

    /** The engram hashing geometry of {@code g}. */
    static Engram.Tables engramTables(Geometry g) {
        return new Engram.Tables(g.engramOrders(), g.engramHeads(), g.engramSlots());
    }

    /** The engram site of every layer, or -1. */
    static int[] siteOfLayer(Geometry g) {
        int[] site = new int[g.numLayers()];
        java.util.Arrays.fill(site, -1);
        for (int s = 0; s < g.numEngramSites(); s++) site[g.engramSites()[s]] = s;
        return site;
    }

    /** Tap name prefixes, {@code layerNN.}. */
    static String[] layerNames(Geometry g) {
        String[] names = new String[g.numLayers()];
        java.util.Arrays.setAll(names, l -> String.format("layer%02d.", l));
        return names;
    }

    private TensorRecord record(String name) {
        TensorRecord r = file.tensor(name);
        if (r == null) throw new IllegalStateException("layout of " + file.path() + " has no " + name);
        return r;
    }

    private float[] fp(String name) throws FormatException {
        return file.dequantize(record(name).index());
    }

    private PackedCqMatrix cq(String name) throws FormatException {
        TensorRecord r = record(name);
        if (r.dtype() != CactDType.CQ) throw fail(r, "the engine needs this tensor CQ-packed, it is " + r.dtype());
        float[] values;
        int codeBits;
        if (r.bits() == CqPacking.TERNARY_RECORD_BITS) {
            float[] trits = file.codebookFor(r.bits(), r.group());
            // Stored crumbs 3, 0, 1 mean trits 0, 1, 2; crumb 2 never occurs and reads as 0.
            values = new float[] {trits[1], trits[2], 0f, trits[0]};
            codeBits = 2;
        } else if (r.bits() == 2 || r.bits() == 4) {
            values = file.codebookFor(r.bits(), r.group());
            codeBits = r.bits();
        } else {
            throw fail(r, "the engine's kernels take 2-bit, 4-bit and ternary CQ, not " + r.bits() + "-bit");
        }
        if (r.group() % new CodeLayout(codeBits).codesPerChunk() != 0) {
            throw fail(r, "CQ group " + r.group() + " is not a multiple of the kernel chunk for " + codeBits + "-bit codes");
        }
        if (r.group() > Activation.MAX_EXACT_GROUP) {
            throw fail(r, "CQ group " + r.group() + " is above the kernels' " + Activation.MAX_EXACT_GROUP
                    + " (int8 group sums must stay exact in float32)");
        }
        return PackedCqMatrix.over(name, file.blob(r.index()), Math.toIntExact(r.dim(0)), Math.toIntExact(r.dim(1)),
                r.group(), codeBits, values);
    }

    /** Matrices reading one prepared input must agree on width, group and code width. */
    private void sameInput(String name, PackedCqMatrix first, PackedCqMatrix... others) throws FormatException {
        for (PackedCqMatrix m : others) {
            if (m.cols() != first.cols() || m.group() != first.group() || !m.layout().equals(first.layout())) {
                throw fail(record(name), m.name() + " and " + first.name() + " share an input but differ in group or code width");
            }
        }
    }

    private FormatException fail(TensorRecord r, String problem) {
        return new FormatException(file.path(), r.index(), r.name(), r.offset(), problem);
    }
}
