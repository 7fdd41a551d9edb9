package dev.needlewb.converter.v3;

import dev.needlewb.converter.flax.v3.V3Config;

/**
 * Needle 3's optional probe heads in the canonical order upstream writes them ({@code HEADS},
 * architecture.py:1198), with their manifest codes, whether their Flax {@code proj} has a bias
 * (the embedding head's has none: {@code ProbeHead.export} writes zeros, architecture.py:1139-1141)
 * and whether a calibration vector follows (the router's, architecture.py:1176-1179).
 */
public enum V3ProbeHead {
    EMBEDDING(1, "embedding_head", false, false),
    CONFIDENCE(2, "confidence_head", true, false),
    ROUTER(3, "router_head", true, true);

    /** RouterHead.calibration_init, written when the checkpoint has no calibration (architecture.py:1176). */
    public static final double[] DEFAULT_CALIBRATION = {0.90, 0.00, 0.60};

    private final int code;
    private final String key;
    private final boolean flaxBias;
    private final boolean calibration;

    V3ProbeHead(int code, String key, boolean flaxBias, boolean calibration) {
        this.code = code;
        this.key = key;
        this.flaxBias = flaxBias;
        this.calibration = calibration;
    }

    /** The value stored in {@code heads.manifest}. */
    public int code() {
        return code;
    }

    /** The name prefix of the head's tensors, e.g. {@code confidence_head}. */
    public String key() {
        return key;
    }

    public boolean flaxBias() {
        return flaxBias;
    }

    /** Whether the head writes a {@code calibration} tensor after its bias. */
    public boolean hasCalibration() {
        return calibration;
    }

    /** Tensors the head writes: probes, gain, query, row_bias, proj, bias (and calibration). */
    public int tensorCount() {
        return calibration ? 7 : 6;
    }

    /** k, the probes per cell row, from the config ({@code {name}_probes}). */
    public int probes(V3Config c) {
        return switch (this) {
            case EMBEDDING -> c.embeddingProbes();
            case CONFIDENCE -> c.confidenceProbes();
            case ROUTER -> c.routerProbes();
        };
    }

    /** q, the queries, from the config ({@code {name}_queries}). */
    public int queries(V3Config c) {
        return switch (this) {
            case EMBEDDING -> c.embeddingQueries();
            case CONFIDENCE -> c.confidenceQueries();
            case ROUTER -> c.routerQueries();
        };
    }

    /** The projection's outputs: embedding_dim, 1 confidence logit, 3 router logits. */
    public int outputs(V3Config c) {
        return switch (this) {
            case EMBEDDING -> c.embeddingDim();
            case CONFIDENCE -> 1;
            case ROUTER -> 3;
        };
    }

    /** The head's sizes in a model of config {@code c}. */
    public V3HeadShape shape(V3Config c) {
        return new V3HeadShape(this, probes(c), queries(c), outputs(c));
    }

    /** The head with this manifest code, or null. */
    public static V3ProbeHead ofCode(double code) {
        for (V3ProbeHead h : values()) {
            if (h.code == code) return h;
        }
        return null;
    }
}
