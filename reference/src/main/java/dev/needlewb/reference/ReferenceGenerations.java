package dev.needlewb.reference;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.converter.convert.ModelWeights;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The reference's registry: which float64 reference serves each generation. The one place the
 * reference module names an implementation; the switch is exhaustive, so a new generation is
 * listed here by the compiler.
 */
public final class ReferenceGenerations {
    /** How a generation's reference is built from the weights a command read. */
    public interface Loader {
        /** Over weights in the {@code .cact} / PyTorch layout (a dequantized .cact, a state dict). */
        ReferenceForward fromWeights(ModelWeights weights) throws WorkbenchException;

        /** Over a checkpoint's Flax parameter tree ('/'-joined paths) of geometry {@code g}. */
        ReferenceForward fromFlaxParams(Map<String, NpyArray> params, ModelGeometry g) throws WorkbenchException;
    }

    private static final Loader NEEDLE2 = new Loader() {
        @Override
        public ReferenceForward fromWeights(ModelWeights weights) throws WorkbenchException {
            return ReferenceModel.fromWeights(weights, Geometry.of(weights.names().geometry()));
        }

        @Override
        public ReferenceForward fromFlaxParams(Map<String, NpyArray> params, ModelGeometry g) throws WorkbenchException {
            return ReferenceModel.fromFlaxParams(params, Geometry.of(g));
        }
    };

    private ReferenceGenerations() {}

    static Optional<Loader> find(Generation g) {
        return switch (g) {
            case NEEDLE2 -> Optional.of(NEEDLE2);
            case NEEDLE3 -> Optional.empty();
        };
    }

    /**
     * The reference of generation {@code g}, for the model read from {@code source}.
     *
     * @throws WorkbenchException the workbench has no reference of that generation yet (one line naming the file and it)
     */
    public static Loader of(Generation g, Path source) throws WorkbenchException {
        Optional<Loader> loader = find(g);
        if (loader.isEmpty()) throw new WorkbenchException(ErrorKind.WRONG_GENERATION, source + ": " + g + " models have no float64 reference in this version yet");
        return loader.get();
    }
}
