package dev.needlewb.reference;

import dev.needlewb.converter.WorkbenchException;
import dev.needlewb.converter.model.Geometry;
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
            throw new WorkbenchException("geometry: " + g.numHeads() + " query heads are not a multiple of "
                    + g.numKvHeads() + " kv heads");
        }
        if (g.headDim() % 2 != 0) throw new WorkbenchException("geometry: head_dim " + g.headDim() + " is odd");
        for (int s : g.engramSites()) {
            if (s < 0 || s >= g.numLayers()) throw new WorkbenchException("geometry: engram site " + s + " is not a layer");
        }
        if (g.repeatedSite() >= 0) {
            throw new WorkbenchException("geometry: engram site " + g.repeatedSite() + " repeats layer " + g.engramSites()[g.repeatedSite()]
                    + ": the reference injects one site per layer (upstream adds both)");
        }
        double[] embedding = p.get("embedding/embedding", g.vocab(), d);
        BlockWeights[] blocks = new BlockWeights[g.numLayers()];
        MhcWeights[] mhc = new MhcWeights[g.numLayers()];
        for (int l = 0; l < g.numLayers(); l++) {
            blocks[l] = BlockWeights.read(p, "stack/layers/block", g, l, g.numLayers());
            mhc[l] = MhcWeights.read(p, g, l);
        }
        EngramWeights[] engrams = new EngramWeights[g.numEngramSites()];
        for (int s = 0; s < engrams.length; s++) engrams[s] = EngramWeights.read(p, g, s);
        return new ReferenceWeights(embedding, new Matrix(embedding, g.vocab(), d),
                List.of(blocks), List.of(mhc), p.get("stack/final_norm/scale", d), List.of(engrams),
                ProbeHead.read(p, "contrastive_head", d, false),
                ProbeHead.read(p, "confidence_head", d, true),
                MtpWeights.read(p, g));
    }
}
