package dev.needlewb.torch;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.core.v3.V3Geometry;

/**
 * What the torch forward needs of a model, whatever its generation: Needle 2 has one head width for q, k
 * and v, no QKV conv, every layer under the caller's mask and the Walsh-Hadamard MLP; Needle 3 has its
 * qk and v head widths, the conv taps, a sliding window on its local layers, out_vocab logit rows, the
 * engram seed stride and the Kronecker MLP.
 */
record TorchShape(
        int vocab,
        int outVocab,
        int d,
        int lanes,
        int layers,
        int heads,
        int kvHeads,
        int qkDim,
        int vDim,
        double ropeTheta,
        int mlpLength,
        int convTaps,
        int[] windows,
        Engram engram,
        boolean kronecker) {

    /** The engram hashing and shapes: table {@code oi * heads + h} hashes with seed index {@code oi * seedStride + h}. */
    record Engram(int[] orders, int heads, int seedStride, int slots, int subDim, int tables, int convTaps, int dilation, int[] sites) {
        int width() {
            return tables * subDim;
        }
    }

    static TorchShape of(ModelGeometry geometry) throws WorkbenchException {
        TorchShape s = switch (geometry) {
            case Geometry g -> new TorchShape(g.vocab(), g.vocab(), g.dModel(), g.mhcLanes(), g.numLayers(), g.numHeads(), g.numKvHeads(),
                    g.headDim(), g.headDim(), g.ropeTheta(), g.dModel() <= 1 ? 1 : Integer.highestOneBit(g.dModel() - 1) << 1, 0,
                    new int[g.numLayers()], new Engram(g.engramOrders(), g.engramHeads(), g.engramHeads(), g.engramSlots(), g.engramSubDim(),
                            g.numEngramTables(), g.engramConvTaps(), g.engramConvDilation(), g.engramSites()), false);
            case V3Geometry g -> {
                int[] windows = new int[g.numLayers()];
                java.util.Arrays.setAll(windows, g::layerWindow);
                yield new TorchShape(g.vocab(), g.outVocab(), g.dModel(), g.mhcLanes(), g.numLayers(), g.numHeads(), g.numKvHeads(),
                        g.qkHeadDim(), g.vHeadDim(), g.ropeTheta(), g.hadaN(), g.qkvConvTaps(), windows,
                        new Engram(g.engramOrders(), g.engramHeads(), g.engramSeedStride(), g.engramSlots(),
                                g.engramSubDim(), g.numEngramTables(), g.engramConvTaps(), g.engramConvDilation(), g.engramSites()), true);
            }
            default -> throw new WorkbenchException(ErrorKind.UNSUPPORTED, "the torch engine runs Needle 2 and Needle 3 models, not "
                    + geometry.generation());
        };
        int repeated = dev.needlewb.core.generation.EngramSites.firstRepeated(s.engram.sites());
        if (repeated >= 0) {
            throw new WorkbenchException(ErrorKind.UNSUPPORTED, "geometry: engram site " + repeated + " repeats a layer: the torch engine"
                    + " injects one site per layer, as the reference does");
        }
        return s;
    }

    long qWidth() {
        return (long) heads * qkDim;
    }

    long kWidth() {
        return (long) kvHeads * qkDim;
    }

    long vWidth() {
        return (long) kvHeads * vDim;
    }

    /** The attention output width, {@code heads * v_head_dim}. */
    long attnWidth() {
        return (long) heads * vDim;
    }
}
