package dev.needlewb.converter.v2;

/**
 * The optional probe heads, in the canonical order upstream writes them, with their manifest
 * codes and whether their Flax {@code proj} has a bias (the contrastive head's Dense has none:
 * upstream's {@code _head_tensors} writes zeros for it).
 */
public enum ProbeHead {
    CONTRASTIVE(1, "contrastive_head", false),
    CONFIDENCE(2, "confidence_head", true);

    private final int code;
    private final String key;
    private final boolean flaxBias;

    ProbeHead(int code, String key, boolean flaxBias) {
        this.code = code;
        this.key = key;
        this.flaxBias = flaxBias;
    }

    /** The value stored in {@code heads.manifest}. */
    public int code() {
        return code;
    }

    /** The name prefix of the head's tensors, e.g. {@code contrastive_head}. */
    public String key() {
        return key;
    }

    /** Whether the Flax checkpoint holds {@code proj/bias} for this head. */
    public boolean flaxBias() {
        return flaxBias;
    }

    /** The head with this manifest code, or null. */
    public static ProbeHead ofCode(double code) {
        for (ProbeHead h : values()) {
            if (h.code == code) return h;
        }
        return null;
    }
}
