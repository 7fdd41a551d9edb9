package dev.needlewb.engine;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.converter.cact.CactDType;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.converter.cq.CqNibbles;
import dev.needlewb.converter.cq.InvalidCodeException;
import dev.needlewb.engine.kernel.Activation;
import dev.needlewb.engine.kernel.CodeLayout;
import dev.needlewb.engine.kernel.PackedCqMatrix;
import dev.needlewb.engine.layer.Engram;
import dev.needlewb.engine.layer.HadamardMlp;
import dev.needlewb.engine.layer.KroneckerMlp;
import dev.needlewb.engine.layer.MhcWeights;
import dev.needlewb.engine.layer.Mlp;
import dev.needlewb.engine.probe.ProbeHeadWeights;
import dev.needlewb.engine.probe.ProbeHeadsPresent;
import dev.needlewb.converter.v3.V3ProbeHead;
import dev.needlewb.converter.v3.V3Tensor;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The weights of a {@code .cact} as the engine runs them: every CQ matrix is a {@link PackedCqMatrix}
 * view over the file's bytes in memory (no dense copy); only the FP16 vectors (norm gains, MLP diagonals and,
 * in Needle 3, its small Kronecker factors and conditioner and the QKV conv taps; mHC scalars, engram taps; a
 * few hundred KB for the released models) are widened to float32. The kernels take 2-bit (and ternary) and
 * 4-bit codes: a 3-bit matrix, and every matrix that shares an input with a 4-bit one, is re-packed once at
 * load into a heap copy at 4 bits per code ({@link CqNibbles}, half a byte per padded weight) with its
 * codebook padded to 16 entries. Both generations name the tensors they share alike ({@code layerNN.q_proj}).
 */
final class ModelWeights {
    final EngineShape s;
    final PackedCqMatrix embedding;
    /** The logit projection: the embedding's first out_vocab rows (all of them in Needle 2). */
    final PackedCqMatrix logits;
    final LayerWeights[] layers;
    final MhcWeights mhc;
    final Engram.Weights[] engrams;
    final float[] finalNorm;
    /** Needle 3's probe heads the file has, in canonical order (none in Needle 2, whose heads pool differently). */
    final List<ProbeHeadWeights> heads;

    private final CactFile file;

    ModelWeights(CactFile file, EngineShape s) throws FormatException {
        this.file = file;
        this.s = s;
        embedding = cq("embedding", kernelBits("embedding"));
        logits = s.outVocab() == s.vocab() ? embedding : embedding.rowSlice(0, s.outVocab());
        mhc = new MhcWeights(s.mhcLanes(), fp("mhc_a_pre"), fp("mhc_a_post"), fp("mhc_a_res"), fp("mhc_b_pre"), fp("mhc_b_post"), fp("mhc_b_res"));
        PackedCqMatrix[] phi = sharingInput("mhc_phi_pre", "mhc_phi_post", "mhc_phi_res");
        PackedCqMatrix phiPre = phi[0], phiPost = phi[1], phiRes = phi[2];
        int n = s.mhcLanes();
        int[][] perms = s.mlp() == EngineShape.Mlp.KRONECKER ? new int[][] {permutation("hada_p1"), permutation("hada_p2")} : null;
        layers = new LayerWeights[s.numLayers()];
        for (int i = 0; i < layers.length; i++) {
            PackedCqMatrix[] qkvg = sharingInput(layer(i, "q_proj"), layer(i, "k_proj"), layer(i, "v_proj"), layer(i, "gate_proj"));
            Mlp mlp = perms == null ? new HadamardMlp(s.dModel(), s.hadaN(), fp(layer(i, "d1")), fp(layer(i, "d2")), fp(layer(i, "d3")))
                    : kronecker(i, perms[0], perms[1]);
            layers[i] = new LayerWeights(fp(layer(i, "norm_in")), qkvg[0], qkvg[1], qkvg[2], s.convTaps() > 0 ? convTaps(i) : null,
                    fp(layer(i, "q_norm")), fp(layer(i, "k_norm")), qkvg[3], cq(layer(i, "out_proj"), kernelBits(layer(i, "out_proj"))),
                    fp(layer(i, "post_norm")), fp(layer(i, "attn_gate"))[0], fp(layer(i, "pre_hada")), mlp,
                    phiPre.rowSlice(i * n, n), phiPost.rowSlice(i * n, n), phiRes.rowSlice(i * n * n, n * n));
        }
        engrams = new Engram.Weights[s.numEngramSites()];
        for (int e = 0; e < engrams.length; e++) {
            PackedCqMatrix[] kv = sharingInput("engram" + e + ".key_proj", "engram" + e + ".value_proj");
            String tables = "engram" + e + ".tables";
            engrams[e] = new Engram.Weights(cq(tables, kernelBits(tables)), kv[0], kv[1], fp("engram" + e + ".taps"));
        }
        finalNorm = fp("final_norm");
        heads = probeHeads();
    }

    /** The file's Needle 3 probe heads as stored (their shapes were checked against the layout when the file was read). */
    private List<ProbeHeadWeights> probeHeads() throws FormatException {
        List<ProbeHeadWeights> out = new ArrayList<>();
        int rows = s.numLayers() + 1;
        for (V3ProbeHead h : ProbeHeadsPresent.in(file)) {
            String probesName = V3Tensor.HEAD_PROBES.nameFor(h);
            PackedCqMatrix probes = cq(probesName, kernelBits(probesName));
            int k = probes.rows() / rows;
            PackedCqMatrix[] perRow = new PackedCqMatrix[rows];
            for (int r = 0; r < rows; r++) perRow[r] = probes.rowSlice(r * k, k);
            String query = V3Tensor.HEAD_QUERY.nameFor(h), proj = V3Tensor.HEAD_PROJ.nameFor(h);
            out.add(new ProbeHeadWeights(h, k, perRow, fp(V3Tensor.HEAD_GAIN.nameFor(h)), cq(query, kernelBits(query)),
                    fp(V3Tensor.HEAD_ROW_BIAS.nameFor(h)), cq(proj, kernelBits(proj)), fp(V3Tensor.HEAD_BIAS.nameFor(h))));
        }
        return List.copyOf(out);
    }

    private static String layer(int i, String tensor) {
        return String.format("layer%02d.%s", i, tensor);
    }

    /** The layer's q|k|v conv taps, {@code [taps, qDim + kDim + vDim]}: each tap's q, k and v channels side by side. */
    private float[] convTaps(int i) throws FormatException {
        float[] q = fp(layer(i, "q_taps")), k = fp(layer(i, "k_taps")), v = fp(layer(i, "v_taps"));
        int qd = s.qDim(), kd = s.kDim(), vd = s.vDim(), width = qd + kd + vd;
        float[] taps = new float[s.convTaps() * width];
        for (int j = 0; j < s.convTaps(); j++) {
            System.arraycopy(q, j * qd, taps, j * width, qd);
            System.arraycopy(k, j * kd, taps, j * width + qd, kd);
            System.arraycopy(v, j * vd, taps, j * width + qd + kd, vd);
        }
        return taps;
    }

    /** Needle 3's MLP of layer {@code i}: FP16 factors and conditioner widened as stored (3-d factors: block-untied). */
    private KroneckerMlp kronecker(int i, int[] p1, int[] p2) throws FormatException {
        boolean untied = record(layer(i, "w1a")).shape().length == 3;
        KroneckerMlp.Factors[] stages = new KroneckerMlp.Factors[3];
        for (int st = 0; st < 3; st++) stages[st] = new KroneckerMlp.Factors(fp(layer(i, "w" + (st + 1) + "a")), fp(layer(i, "w" + (st + 1) + "b")));
        return new KroneckerMlp(s.dModel(), s.hadaN(), untied, fp(layer(i, "cond_v")), fp(layer(i, "cond_u")), fp(layer(i, "d1")),
                fp(layer(i, "d2")), fp(layer(i, "b2")), fp(layer(i, "d3")), fp(layer(i, "d4")), stages, p1, p2);
    }

    /** An FP32 permutation of {@code [0, hada_n)} as stored (upstream's RandomState draw); anything else is refused. */
    private int[] permutation(String name) throws FormatException {
        TensorRecord r = record(name);
        float[] values = fp(name);
        int[] p = new int[values.length];
        boolean[] seen = new boolean[values.length];
        for (int m = 0; m < p.length; m++) {
            float v = values[m];
            if (v != Math.rint(v) || v < 0 || v >= p.length || seen[(int) v]) {
                throw new FormatException(ErrorKind.BAD_VALUE, file.path(), r.index(), r.name(), r.offset() + 4L * m,
                        "entry " + m + " is " + v + ": not a permutation of 0.." + (p.length - 1));
            }
            seen[(int) v] = true;
            p[m] = (int) v;
        }
        return p;
    }

    private TensorRecord record(String name) {
        TensorRecord r = file.tensor(name);
        if (r == null) throw new IllegalStateException("layout of " + file.path() + " has no " + name);
        return r;
    }

    private float[] fp(String name) throws FormatException {
        return file.dequantize(record(name).index());
    }

    /**
     * The matrices that read one prepared input, at one kernel code width: their common one, or 4
     * bits when they mix 2-bit and 4-bit kernels (upstream's bits maps may give them any widths).
     */
    private PackedCqMatrix[] sharingInput(String... names) throws FormatException {
        int bits = kernelBits(names[0]);
        for (String name : names) {
            if (kernelBits(name) != bits) bits = 4;
        }
        PackedCqMatrix[] out = new PackedCqMatrix[names.length];
        for (int i = 0; i < names.length; i++) out[i] = cq(names[i], bits);
        return out;
    }

    /** The code width of the kernel a tensor runs on as stored: 2 for 2-bit and ternary, 4 for 3- and 4-bit. */
    private int kernelBits(String name) throws FormatException {
        TensorRecord r = record(name);
        if (r.dtype() != CactDType.CQ) throw fail(ErrorKind.UNSUPPORTED_DTYPE, r, "the engine needs this tensor CQ-packed, it is " + r.dtype());
        return r.bits() == 2 || r.isTernary() ? 2 : 4;
    }

    /** A view over the stored codes at {@code codeBits}, or over a 4-bit copy of them. */
    private PackedCqMatrix cq(String name, int codeBits) throws FormatException {
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
        return PackedCqMatrix.over(name, blob, Math.toIntExact(r.dim(0)), Math.toIntExact(r.dim(1)),
                r.group(), codeBits, values);
    }

    private FormatException fail(ErrorKind kind, TensorRecord r, String problem) {
        return new FormatException(kind, file.path(), r.index(), r.name(), r.offset(), problem);
    }
}
