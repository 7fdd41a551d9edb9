package dev.needlewb.engine.probe;

import dev.needlewb.converter.v3.V3ProbeHead;
import java.util.Map;

/**
 * The probe heads' raw projections over a sequence (upstream Needle 3's {@code ProbeHead.__call__}
 * before any post-processing): {@link V3ProbeHead#CONFIDENCE} one logit, {@link V3ProbeHead#ROUTER} three,
 * {@link V3ProbeHead#EMBEDDING} embedding_dim values, for the heads the file has.
 */
public record ProbeOutputs(Map<V3ProbeHead, double[]> raw) {
    public ProbeOutputs {
        raw = Map.copyOf(raw);
    }

    public boolean has(V3ProbeHead head) {
        return raw.containsKey(head);
    }

    /** Upstream {@code forward_confidence}: the raw logit, no sigmoid. */
    public double confidenceLogit() {
        return require(V3ProbeHead.CONFIDENCE)[0];
    }

    /** {@code sigmoid(confidenceLogit())}. */
    public double confidence() {
        return 1 / (1 + Math.exp(-confidenceLogit()));
    }

    /** Upstream {@code forward_router}: the three logits. */
    public double[] router() {
        return require(V3ProbeHead.ROUTER).clone();
    }

    /** The embedding head's projection's L2 norm, before upstream {@code forward_embedding} divides by it. */
    public double embeddingNorm() {
        double s = 0;
        for (double v : require(V3ProbeHead.EMBEDDING)) s += v * v;
        return Math.sqrt(s);
    }

    /** Upstream {@code forward_embedding}: the projection over {@code sqrt(sum p^2 + 1e-12)}. */
    public double[] embedding() {
        double[] p = require(V3ProbeHead.EMBEDDING).clone();
        double s = 0;
        for (double v : p) s += v * v;
        double denom = Math.sqrt(s + 1e-12);
        for (int i = 0; i < p.length; i++) p[i] /= denom;
        return p;
    }

    private double[] require(V3ProbeHead head) {
        double[] v = raw.get(head);
        if (v == null) throw new IllegalStateException("the model has no " + head.key());
        return v;
    }
}
