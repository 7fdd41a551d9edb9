package dev.needlewb.converter.cact;

/** The optional probe heads, in the canonical order upstream writes them, with their manifest codes. */
public enum ProbeHead {
    CONTRASTIVE(1, "contrastive_head"),
    CONFIDENCE(2, "confidence_head");

    private final int code;
    private final String key;

    ProbeHead(int code, String key) {
        this.code = code;
        this.key = key;
    }

    /** The value stored in {@code heads.manifest}. */
    public int code() {
        return code;
    }

    /** The name prefix of the head's tensors, e.g. {@code contrastive_head}. */
    public String key() {
        return key;
    }

    /** The head with this manifest code, or null. */
    public static ProbeHead ofCode(double code) {
        for (ProbeHead h : values()) {
            if (h.code == code) return h;
        }
        return null;
    }
}
