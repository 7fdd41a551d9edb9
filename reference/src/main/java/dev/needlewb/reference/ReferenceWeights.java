package dev.needlewb.reference;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.convert.ParallelTensors;
import dev.needlewb.core.v2.Geometry;
import java.util.List;

/** Every weight the reference reads, widened to float64, checked against the geometry. */
record ReferenceWeights(
        double[] embedding,
        Matrix embeddingMatrix,
        List<BlockWeights> blocks,
        List<MhcWeights> mhc,
        double[] finalNorm,
        List<EngramWeights> engrams,
        ProbeHead contrastive,
        ProbeHead confidence,
        MtpWeights mtp) {

    static ReferenceWeights read(FlaxParams p, Geometry g) throws WorkbenchException {
        int d = g.dModel();
        if (g.numHeads() % Math.max(1, g.numKvHeads()) != 0 || g.numKvHeads() == 0) {
            throw new WorkbenchException(ErrorKind.BAD_GEOMETRY, "geometry: " + g.numHeads() + " query heads are not a multiple of "
                    + g.numKvHeads() + " kv heads");
        }
        if (g.headDim() % 2 != 0) throw new WorkbenchException(ErrorKind.BAD_GEOMETRY, "geometry: head_dim " + g.headDim() + " is odd");
        for (int s : g.engramSites()) {
            if (s < 0 || s >= g.numLayers()) throw new WorkbenchException(ErrorKind.BAD_GEOMETRY, "geometry: engram site " + s + " is not a layer");
        }
        if (g.repeatedSite() >= 0) {
            throw new WorkbenchException(ErrorKind.UNSUPPORTED, "geometry: engram site " + g.repeatedSite() + " repeats layer " + g.engramSites()[g.repeatedSite()]
                    + ": the reference injects one site per layer (upstream adds both)");
        }
        int layers = g.numLayers();
        int sites = g.numEngramSites();
        BlockWeights[] blocks = new BlockWeights[layers];
        MhcWeights[] mhc = new MhcWeights[layers];
        EngramWeights[] engrams = new EngramWeights[sites];
        double[][] embedding = new double[1][];
        // the layers, engram sites and embedding widened on every thread, largest first
        long layerSize = (long) d * (2L * g.qDim() + 2L * g.kvDim()) + (long) g.qDim() * d
                + (long) g.mhcLanes() * d * (2L * g.mhcLanes() + (long) g.mhcLanes() * g.mhcLanes());
        long siteSize = (long) g.numEngramTables() * g.engramSlots() * g.engramSubDim()
                + 2L * g.numEngramTables() * g.engramSubDim() * d;
        ParallelTensors.map(layers + sites + 1, i -> i < layers ? layerSize : i < layers + sites ? siteSize : (long) g.vocab() * d, i -> {
            if (i < layers) {
                blocks[i] = BlockWeights.read(p, "stack/layers/block", g, i, layers);
                mhc[i] = MhcWeights.read(p, g, i);
            } else if (i < layers + sites) {
                engrams[i - layers] = EngramWeights.read(p, g, i - layers);
            } else {
                embedding[0] = p.get("embedding/embedding", g.vocab(), d);
            }
            return null;
        }, done -> {});
        return new ReferenceWeights(embedding[0], new Matrix(embedding[0], g.vocab(), d),
                List.of(blocks), List.of(mhc), p.get("stack/final_norm/scale", d), List.of(engrams),
                ProbeHead.read(p, "contrastive_head", d, false),
                ProbeHead.read(p, "confidence_head", d, true),
                MtpWeights.read(p, g));
    }
}
