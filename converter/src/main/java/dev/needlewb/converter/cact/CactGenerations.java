package dev.needlewb.converter.cact;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.converter.v2.V2Cact;
import dev.needlewb.converter.v3.V3Cact;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The converter's registry: which {@link CactGeneration} serves each generation. The one place
 * the format code names an implementation; adding a generation adds its case here (the switch is
 * exhaustive, so the compiler lists this place when the enum grows).
 */
public final class CactGenerations {
    private CactGenerations() {}

    /** The generation's {@code .cact} support, if the workbench has it. */
    public static Optional<CactGeneration> find(Generation g) {
        return switch (g) {
            case NEEDLE2 -> Optional.of(V2Cact.INSTANCE);
            case NEEDLE3 -> Optional.of(V3Cact.INSTANCE);
        };
    }

    /**
     * The support of a generation code already holds a geometry of (it was read or built by that
     * generation, so the support exists).
     */
    public static CactGeneration of(Generation g) {
        return find(g).orElseThrow(() -> new IllegalStateException(g + " has a geometry but no .cact support"));
    }

    /**
     * The support for a file starting with {@code tag}.
     *
     * @throws FormatException at byte 0: a tag of no generation, or of one whose files the
     *     workbench does not read yet (named, with the tags it knows)
     */
    public static CactGeneration ofTag(int tag, Path file) throws FormatException {
        Generation g = Generation.ofTag(tag).orElseThrow(() -> new FormatException(ErrorKind.BAD_TAG, file, CactFormat.OFF_TAG,
                "tag " + Generation.hex(tag) + " is not a .cact tag (known: " + Generation.knownTags() + ")"));
        return find(g).orElseThrow(() -> new FormatException(ErrorKind.WRONG_GENERATION, file, CactFormat.OFF_TAG,
                "tag " + Generation.hex(tag) + " marks a " + g + " file: " + g + " is not supported yet (this version reads "
                        + supported() + ")"));
    }

    /** The generations whose files the workbench reads, e.g. {@code Needle 2}. */
    private static String supported() {
        return Arrays.stream(Generation.values()).filter(g -> find(g).isPresent()).map(Generation::displayName)
                .collect(Collectors.joining(", "));
    }
}
