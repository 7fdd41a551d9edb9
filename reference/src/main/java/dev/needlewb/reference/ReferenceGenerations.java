package dev.needlewb.reference;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.converter.flax.v3.V3ConfigGeometry;
import dev.needlewb.reference.v3.V3Model;
import dev.needlewb.reference.v3.V3Reference;
import dev.needlewb.reference.v3.V3StoredModel;
import java.util.Map;

/**
 * The reference's registry: which float64 reference serves each generation. The one place the
 * reference module names an implementation; the switch is exhaustive, so a new generation is
 * listed here by the compiler. Needle 3's reference takes a checkpoint's config, or builds it from a
 * .cact's header and tensor shapes ({@link V3StoredModel}).
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

    private static final Loader NEEDLE3 = new Loader() {
        @Override
        public ReferenceForward fromWeights(ModelWeights weights) throws WorkbenchException {
            return new V3Reference(V3StoredModel.load(weights));
        }

        @Override
        public ReferenceForward fromFlaxParams(Map<String, NpyArray> params, ModelGeometry g) throws WorkbenchException {
            if (!(g instanceof V3ConfigGeometry v3)) throw new IllegalArgumentException("a Needle 3 tree needs a Needle 3 config, not " + g);
            return new V3Reference(V3Model.load(params, v3.config()));
        }
    };

    private ReferenceGenerations() {}

    /** The reference of generation {@code g}: every generation the workbench knows has one. */
    public static Loader of(Generation g) {
        return switch (g) {
            case NEEDLE2 -> NEEDLE2;
            case NEEDLE3 -> NEEDLE3;
        };
    }
}
