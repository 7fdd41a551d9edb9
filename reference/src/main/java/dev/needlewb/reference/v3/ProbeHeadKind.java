package dev.needlewb.reference.v3;

import dev.needlewb.converter.flax.v3.V3Config;

/**
 * The three Needle 3 probe heads ({@code architecture.py} HEADS): their Flax prefix, the
 * {@code .cact} manifest code, their probe and query counts from the config, their output width
 * and whether the projection has a bias.
 */
public enum ProbeHeadKind {
    /** L2-normalised embedding, proj without bias (code 1). */
    EMBEDDING("embedding_head", 1),
    /** One raw logit (code 2). */
    CONFIDENCE("confidence_head", 2),
    /** Three logits (code 3). */
    ROUTER("router_head", 3);

    private final String prefix;
    private final int code;

    ProbeHeadKind(String prefix, int code) {
        this.prefix = prefix;
        this.code = code;
    }

    /** The Flax tree prefix, e.g. {@code confidence_head}. */
    public String prefix() {
        return prefix;
    }

    /** The {@code .cact} heads-manifest code. */
    public int code() {
        return code;
    }

    int probes(V3Config c) {
        return switch (this) {
            case EMBEDDING -> c.embeddingProbes();
            case CONFIDENCE -> c.confidenceProbes();
            case ROUTER -> c.routerProbes();
        };
    }

    int queries(V3Config c) {
        return switch (this) {
            case EMBEDDING -> c.embeddingQueries();
            case CONFIDENCE -> c.confidenceQueries();
            case ROUTER -> c.routerQueries();
        };
    }

    int outputs(V3Config c) {
        return switch (this) {
            case EMBEDDING -> c.embeddingDim();
            case CONFIDENCE -> 1;
            case ROUTER -> 3;
        };
    }

    boolean hasBias() {
        return this != EMBEDDING;
    }
}
