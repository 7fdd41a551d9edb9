package dev.needlewb.reference.v3;

import dev.needlewb.converter.v3.V3ProbeHead;
import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.reference.FlaxParams;

/**
 * One probe head's parameters, Flax shapes, L1 = layers + 1 cell rows: probes [L1, k, d],
 * gain [L1, k], query [q, d], row_bias [q, L1, k], proj [q*d, out] and the bias [out] (null for
 * the embedding head).
 */
record ProbeHeadWeights(V3ProbeHead kind, int probes, int queries, int outputs,
                        double[] probe, double[] gain, double[] query, double[] rowBias, double[] proj, double[] bias) {

    /** The head's parameters, or null when the tree has none under its prefix. */
    static ProbeHeadWeights read(FlaxParams p, V3Config c, V3ProbeHead kind) throws WorkbenchException {
        String h = kind.key() + "/";
        if (!p.hasTree(kind.key())) return null;
        int rows = c.numLayers() + 1;
        int d = c.dModel();
        int k = kind.probes(c);
        int q = kind.queries(c);
        int out = kind.outputs(c);
        return new ProbeHeadWeights(kind, k, q, out,
                p.get(h + "probes", rows, k, d),
                p.get(h + "gain", rows, k),
                p.get(h + "query", q, d),
                p.get(h + "row_bias", q, rows, k),
                p.get(h + "proj/kernel", q * d, out),
                kind.flaxBias() ? p.get(h + "proj/bias", out) : null);
    }
}
