package dev.needlewb.core.generation;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The Needle generations the workbench knows, and the one place that maps a {@code .cact} tag
 * (the u32 at byte 0), or a checkpoint's config, to its generation. Upstream's own reader keeps the same map
 * ({@code {0x05E12A83: 2, 0x05E12A84: 3}}). Each module keeps a registry from a generation to
 * what it supplies for it; a generation a module has nothing for is refused there with one line.
 */
public enum Generation {
    /**
     * Needle 2 ({@code cactus-compute/needle}): header {@code <29If}. Its legacy tag 0x05E12A82
     * (upstream v2.0.1-2.0.2) heads a {@code <IIIII} header without the geometry.
     */
    NEEDLE2("Needle 2", 0x05E12A83, 0x05E12A82),
    /** Needle 3 ({@code usserwout/needle3} 3.0.1): header {@code <48If}. */
    NEEDLE3("Needle 3", 0x05E12A84, null);

    private final String displayName;
    private final int tag;
    private final Integer legacyTag;

    Generation(String displayName, int tag, Integer legacyTag) {
        this.displayName = displayName;
        this.tag = tag;
        this.legacyTag = legacyTag;
    }

    /** E.g. {@code Needle 2}. */
    public String displayName() {
        return displayName;
    }

    /** The tag a writer of this generation puts at byte 0. */
    public int tag() {
        return tag;
    }

    /** Whether {@code tag} is this generation's older header layout rather than its current one. */
    public boolean isLegacyTag(int tag) {
        return legacyTag != null && legacyTag == tag;
    }

    /** The generation whose files start with {@code tag} (current or legacy header), if any. */
    public static Optional<Generation> ofTag(int tag) {
        for (Generation g : values()) {
            if (g.tag == tag || g.isLegacyTag(tag)) return Optional.of(g);
        }
        return Optional.empty();
    }

    /**
     * The generation of a training checkpoint from its config's keys: Needle 3's config has
     * {@code qk_head_dim} (its writer saves every TransformerConfig field), Needle 2's has
     * {@code attn_dim} instead (upstream Needle 3's load_checkpoint calls a config with attn_dim
     * and no qk_head_dim Needle 2; run.py:34-37).
     */
    public static Generation ofCheckpointConfig(Set<String> configKeys) {
        return configKeys.contains("qk_head_dim") ? NEEDLE3 : NEEDLE2;
    }

    /** {@code 0x05E12A83 (Needle 2), 0x05E12A82 (Needle 2, legacy header), 0x05E12A84 (Needle 3)}: for messages. */
    public static String knownTags() {
        List<String> known = new ArrayList<>();
        for (Generation g : values()) {
            known.add(hex(g.tag) + " (" + g.displayName + ")");
            if (g.legacyTag != null) known.add(hex(g.legacyTag) + " (" + g.displayName + ", legacy header)");
        }
        return String.join(", ", known);
    }

    /** {@code 0x05E12A83}. */
    public static String hex(int tag) {
        return String.format("0x%08X", tag);
    }

    @Override
    public String toString() {
        return displayName;
    }
}
