package dev.needlewb.converter.synth;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.core.generation.ModelGeometry;
import java.util.List;
import java.util.Map;

/**
 * One model of a geometry sweep, of either generation: the config dict of its training checkpoint (the
 * fields of upstream's {@code TransformerConfig} as a pickle holds them), the probe heads it carries, and
 * how {@code convert} quantizes it (CQ group, bits map).
 */
public sealed interface DrawnModel permits DrawnGeometry, DrawnV3Geometry {
    /** {@code g03-hd40} or {@code v3-g03-qk24-v40}: unique within a sweep, a folder name. */
    String name();

    Generation generation();

    Map<String, Object> config();

    /** The probe heads' parameter keys ({@code confidence_head}, ...), in the order upstream writes them. */
    List<String> headKeys();

    int group();

    String bitsMap();

    /** The header geometry upstream's exporter writes for this config. */
    ModelGeometry geometry() throws WorkbenchException;

    /** One line for tables: every shape field the draw chose. */
    String describe() throws WorkbenchException;

    /** Geometry {@code index} of {@code generation}'s draws with seed {@code seed} ({@link GeometryDraws}, {@link V3GeometryDraws}). */
    static DrawnModel draw(Generation generation, long seed, int index) {
        return switch (generation) {
            case NEEDLE2 -> GeometryDraws.draw(seed, index);
            case NEEDLE3 -> V3GeometryDraws.draw(seed, index);
        };
    }
}
