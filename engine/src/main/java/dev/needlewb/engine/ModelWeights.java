package dev.needlewb.engine;

import static dev.needlewb.converter.v2.ModelTensor.*;

import dev.needlewb.converter.v2.V2Header;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.converter.cact.CactDType;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.converter.cq.CqNibbles;
import dev.needlewb.converter.cq.InvalidCodeException;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.converter.v2.TensorName;
import dev.needlewb.engine.kernel.Activation;
import dev.needlewb.engine.kernel.CodeLayout;
import dev.needlewb.engine.kernel.PackedCqMatrix;
import dev.needlewb.engine.layer.Engram;
import dev.needlewb.engine.layer.MhcWeights;
import java.lang.foreign.MemorySegment;

/**
 * The weights of a {@code .cact} as the engine runs them: every CQ matrix is a {@link PackedCqMatrix}
 * view over the file's bytes in memory (no dense copy); only the FP16 vectors (norm gains, Hadamard diagonals,
 * mHC scalars, engram taps; a few hundred KB for the released model) are widened to float32. The
 * kernels take 2-bit (and ternary) and 4-bit codes: a 3-bit matrix, and every matrix that shares
 * an input with a 4-bit one, is re-packed once at load into a heap copy at 4 bits per code
 * ({@link CqNibbles}, half a byte per padded weight) with its codebook padded to 16 entries.
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
        this.g = Geometry.of(file.geometry());
        int repeated = g.repeatedSite();
        if (repeated >= 0) {
            throw new FormatException(ErrorKind.UNSUPPORTED, file.path(), V2Header.OFF_SITES + 4L * repeated, "engram site " + repeated + " repeats layer "
                    + g.engramSites()[repeated] + ": the engine injects one site per layer (upstream adds both)");
        }
        embedding = cq(EMBEDDING.single(), kernelBits(EMBEDDING.single()));
        mhc = new MhcWeights(g.mhcLanes(), fp(MHC_A_PRE.single()), fp(MHC_A_POST.single()), fp(MHC_A_RES.single()),
                fp(MHC_B_PRE.single()), fp(MHC_B_POST.single()), fp(MHC_B_RES.single()));
        PackedCqMatrix[] phi = sharingInput(MHC_PHI_PRE.single(), MHC_PHI_POST.single(), MHC_PHI_RES.single());
        PackedCqMatrix phiPre = phi[0], phiPost = phi[1], phiRes = phi[2];
        int n = g.mhcLanes();
        layers = new LayerWeights[g.numLayers()];
        for (int i = 0; i < layers.length; i++) {
            PackedCqMatrix[] qkvg = sharingInput(Q_PROJ.at(i), K_PROJ.at(i), V_PROJ.at(i), GATE_PROJ.at(i));
            layers[i] = new LayerWeights(fp(NORM_IN.at(i)), qkvg[0], qkvg[1], qkvg[2],
                    fp(Q_NORM.at(i)), fp(K_NORM.at(i)), qkvg[3], cq(OUT_PROJ.at(i), kernelBits(OUT_PROJ.at(i))), fp(POST_NORM.at(i)),
                    fp(ATTN_GATE.at(i))[0], fp(PRE_HADA.at(i)), fp(D1.at(i)), fp(D2.at(i)), fp(D3.at(i)),
                    phiPre.rowSlice(i * n, n), phiPost.rowSlice(i * n, n), phiRes.rowSlice(i * n * n, n * n));
        }
        engrams = new Engram.Weights[g.numEngramSites()];
        for (int s = 0; s < engrams.length; s++) {
            PackedCqMatrix[] kv = sharingInput(ENGRAM_KEY_PROJ.at(s), ENGRAM_VALUE_PROJ.at(s));
            engrams[s] = new Engram.Weights(cq(ENGRAM_TABLES.at(s), kernelBits(ENGRAM_TABLES.at(s))), kv[0], kv[1], fp(ENGRAM_TAPS.at(s)));
        }
        finalNorm = fp(FINAL_NORM.single());
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

    private TensorRecord record(TensorName t) {
        TensorRecord r = file.tensor(t.name());
        if (r == null) throw new IllegalStateException("layout of " + file.path() + " has no " + t.name());
        return r;
    }

    private float[] fp(TensorName name) throws FormatException {
        return file.dequantize(record(name).index());
    }

    /**
     * The matrices that read one prepared input, at one kernel code width: their common one, or 4
     * bits when they mix 2-bit and 4-bit kernels (upstream's bits maps may give them any widths).
     */
    private PackedCqMatrix[] sharingInput(TensorName... names) throws FormatException {
        int bits = kernelBits(names[0]);
        for (TensorName name : names) {
            if (kernelBits(name) != bits) bits = 4;
        }
        PackedCqMatrix[] out = new PackedCqMatrix[names.length];
        for (int i = 0; i < names.length; i++) out[i] = cq(names[i], bits);
        return out;
    }

    /** The code width of the kernel a tensor runs on as stored: 2 for 2-bit and ternary, 4 for 3- and 4-bit. */
    private int kernelBits(TensorName name) throws FormatException {
        TensorRecord r = record(name);
        if (r.dtype() != CactDType.CQ) throw fail(ErrorKind.UNSUPPORTED_DTYPE, r, "the engine needs this tensor CQ-packed, it is " + r.dtype());
        return r.bits() == 2 || r.isTernary() ? 2 : 4;
    }

    /** A view over the stored codes at {@code codeBits}, or over a 4-bit copy of them. */
    private PackedCqMatrix cq(TensorName name, int codeBits) throws FormatException {
        TensorRecord r = record(name);
        float[] values;
        MemorySegment blob = file.blob(r.index());
        if (codeBits == 4 && r.bits() != 4) {
            float[] codebook = file.codebookFor(r.bits(), r.group());
            values = CqNibbles.paddedCodebook(codebook);
            try {
                blob = MemorySegment.ofArray(CqNibbles.widen(file.cqBlob(r.index())));
            } catch (InvalidCodeException e) {
                throw new FormatException(ErrorKind.BAD_CODE, file.path(), r.index(), r.name(), r.offset() + e.byteOffset(), e.getMessage());
            }
        } else if (r.isTernary()) {
            float[] trits = file.codebookFor(r.bits(), r.group());
            // Stored crumbs 3, 0, 1 mean trits 0, 1, 2; crumb 2 never occurs and reads as 0.
            values = new float[] {trits[1], trits[2], 0f, trits[0]};
        } else {
            values = file.codebookFor(r.bits(), r.group());
        }
        if (r.group() % new CodeLayout(codeBits).codesPerChunk() != 0) {
            throw fail(ErrorKind.UNSUPPORTED, r, "CQ group " + r.group() + " is not a multiple of the kernel chunk for " + codeBits + "-bit codes");
        }
        if (r.group() > Activation.MAX_EXACT_GROUP) {
            throw fail(ErrorKind.UNSUPPORTED, r, "CQ group " + r.group() + " is above the kernels' " + Activation.MAX_EXACT_GROUP
                    + " (int8 group sums must stay exact in float32)");
        }
        return PackedCqMatrix.over(name.name(), blob, Math.toIntExact(r.dim(0)), Math.toIntExact(r.dim(1)),
                r.group(), codeBits, values);
    }

    private FormatException fail(ErrorKind kind, TensorRecord r, String problem) {
        return new FormatException(kind, file.path(), r.index(), r.name(), r.offset(), problem);
    }
}
