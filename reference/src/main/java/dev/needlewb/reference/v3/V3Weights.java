package dev.needlewb.reference.v3;

import dev.needlewb.converter.v3.V3ProbeHead;
import dev.needlewb.converter.convert.ParallelTensors;
import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.reference.Engram;
import dev.needlewb.reference.EngramWeights;
import dev.needlewb.reference.FlaxParams;
import dev.needlewb.reference.Matrix;
import dev.needlewb.reference.MhcWeights;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Every weight the Needle 3 reference reads, widened to float64 and checked against the config:
 * the embedding [vocab, d] and its first {@code logitRows} rows as the tied output matrix, the
 * Blocks, the mHC mixing, the final norm, the engram sites, the probe heads present and the MLP
 * permutations.
 */
record V3Weights(
        double[] embedding,
        Matrix logitMatrix,
        List<V3BlockWeights> blocks,
        List<MhcWeights> mhc,
        double[] finalNorm,
        List<EngramWeights> engrams,
        Map<V3ProbeHead, ProbeHeadWeights> heads,
        MlpPermutations permutations) {

    static V3Weights read(FlaxParams p, V3Config c, MlpPermutations permutations) throws WorkbenchException {
        if (!c.engramBankIds().isEmpty()) {
            throw new WorkbenchException(ErrorKind.UNSUPPORTED, "config: engram_bank_ids (shared engram banks) is not supported by the reference; upstream cannot export it either");
        }
        if (!c.claPairs().isEmpty()) {
            throw new WorkbenchException(ErrorKind.UNSUPPORTED, "config: cla_pairs (cross-layer attention) is not supported by the reference; a .cact cannot represent it");
        }
        int d = c.dModel();
        int layers = c.numLayers();
        int sites = c.engramLayers().size();
        Engram.Layout engram = engramLayout(c);
        V3BlockWeights[] blocks = new V3BlockWeights[layers];
        MhcWeights[] mhc = new MhcWeights[layers];
        EngramWeights[] engrams = new EngramWeights[sites];
        double[][] embedding = new double[1][];
        long layerSize = (long) d * (2L * c.numHeads() * c.qkDim() + 2L * c.numKvHeads() * (c.qkDim() + c.vDim()))
                + 3L * c.hadaN() * c.hadaBlockB() + (long) c.mhcLanes() * d * (2L * c.mhcLanes() + (long) c.mhcLanes() * c.mhcLanes());
        long siteSize = (long) engram.tables() * engram.slots() * engram.subDim() + 2L * engram.width() * d;
        // the layers, engram sites and embedding widened on every thread, largest first
        ParallelTensors.map(layers + sites + 1, i -> i < layers ? layerSize : i < layers + sites ? siteSize : (long) c.vocabSize() * d, i -> {
            if (i < layers) {
                blocks[i] = V3BlockWeights.read(p, c, i);
                mhc[i] = MhcWeights.read(p, c.mhcLanes(), layers, d, i);
            } else if (i < layers + sites) {
                engrams[i - layers] = EngramWeights.read(p, engram, i - layers);
            } else {
                embedding[0] = p.get("embedding/embedding", c.vocabSize(), d);
            }
            return null;
        }, done -> {});
        Map<V3ProbeHead, ProbeHeadWeights> heads = new EnumMap<>(V3ProbeHead.class);
        for (V3ProbeHead kind : V3ProbeHead.values()) {
            ProbeHeadWeights h = ProbeHeadWeights.read(p, c, kind);
            if (h != null) heads.put(kind, h);
        }
        int rows = c.logitRows();
        double[] logits = rows == c.vocabSize() ? embedding[0] : Arrays.copyOf(embedding[0], rows * d);
        return new V3Weights(embedding[0], new Matrix(logits, rows, d), List.of(blocks), List.of(mhc),
                p.get("stack/final_norm/scale", d), List.of(engrams), heads, permutations);
    }

    /** The engram geometry of {@code c}, with Needle 3's hash seed stride. */
    static Engram.Layout engramLayout(V3Config c) {
        if (c.engramLayers().isEmpty()) return new Engram.Layout(c.dModel(), 0, 0, 0, new int[0], 0, 0, 0, 0);
        var e = c.engram();
        return new Engram.Layout(c.dModel(), e.subDim(), e.tables(), e.headsPerOrder(), e.orders(), e.dilation(),
                V3Config.ENGRAM_CONV_TAPS, c.engramSlots(), c.engramSeedStride());
    }
}
