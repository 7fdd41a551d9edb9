package dev.needlewb.cli;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.convert.CheckpointParams;
import dev.needlewb.converter.convert.Format;
import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.converter.convert.StateDictFiles;
import dev.needlewb.converter.convert.WeightSources;
import dev.needlewb.converter.convert.WeightTargets;
import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.converter.flax.FlaxTree;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.engine.torch.MlpPermutations;
import dev.needlewb.converter.names.NameMap;
import dev.needlewb.converter.names.NameRow;
import dev.needlewb.reference.ReferenceForward;
import dev.needlewb.reference.ReferenceGenerations;
import java.nio.file.Path;
import java.util.Map;

/**
 * A model's weights as the reference reads them, from any format the converter knows: a checkpoint
 * (raw weights, its Flax parameter tree), a .cact (dequantized as upstream's read_export) or a
 * state dict (shapes and names from a .cact given with {@code like}). The latter two keep their
 * tensors in the .cact / PyTorch layout; their Flax tree is built only when asked for. The
 * reference over them is the one registered for their generation.
 */
final class ModelSource {
    private final ModelGeometry geometry;
    /** Null for a checkpoint. */
    private final ModelWeights weights;
    private final byte[] tokenizer;
    private Map<String, NpyArray> flaxParams;

    private ModelSource(ModelGeometry geometry, ModelWeights weights, Map<String, NpyArray> flaxParams, byte[] tokenizer) {
        this.geometry = geometry;
        this.weights = weights;
        this.flaxParams = flaxParams;
        this.tokenizer = tokenizer;
    }

    /** {@code model}'s weights; {@code nonFinite} says whether NaN or infinity in them is refused. */
    static ModelSource load(Path model, Path like, NonFinitePolicy nonFinite) throws WorkbenchException {
        return switch (Format.of(model)) {
            case FLAX -> {
                CheckpointParams ckpt = CheckpointParams.read(model, nonFinite);
                yield new ModelSource(ckpt.geometry(), null, ckpt.params(), null);
            }
            case CACT -> {
                try (CactFile cact = CactFile.open(model, nonFinite)) {
                    yield of(cact);
                }
            }
            case TORCH, SAFETENSORS -> {
                if (like == null) throw new WorkbenchException(ErrorKind.BAD_OPTION, model + ": a state dict needs --like FILE.cact for its geometry and names");
                // the state dict's weights replace the .cact's: only its geometry, names and tokenizer are read
                try (CactFile cact = CactFile.open(like, NonFinitePolicy.ALLOW)) {
                    NameMap names = WeightSources.namesOf(cact);
                    ModelWeights w = WeightSources.fromStateDict(StateDictFiles.read(model, Format.of(model), nonFinite), names);
                    var tokenizer = cact.tokenizerBlob();
                    yield fromWeights(tokenizer == null ? w : w.withTokenizer(tokenizer.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));
                }
            }
        };
    }

    /** The weights of a .cact already read (dequantized as upstream's read_export). */
    static ModelSource of(CactFile cact) throws WorkbenchException {
        return fromWeights(WeightSources.fromCact(cact, false));
    }

    private static ModelSource fromWeights(ModelWeights w) {
        return new ModelSource(w.names().geometry(), w, null, w.tokenizer());
    }

    ModelGeometry geometry() {
        return geometry;
    }

    /** The tokenizer blob the source carries, or null. */
    byte[] tokenizer() {
        return tokenizer == null ? null : tokenizer.clone();
    }

    /** The float64 reference of the weights' generation (from tensors directly, without the Flax tree's stacked copy). */
    ReferenceForward reference() throws WorkbenchException {
        ReferenceGenerations.Loader loader = ReferenceGenerations.of(geometry.generation());
        return weights == null ? loader.fromFlaxParams(flaxParams, geometry) : loader.fromWeights(weights);
    }

    /** How many leaves the weights' Flax parameter tree has (without building it). */
    int flaxLeafCount() throws WorkbenchException {
        if (weights == null) return flaxParams.size();
        return (int) WeightTargets.flaxRows(weights).stream().map(NameRow::flaxPath).distinct().count();
    }

    /** Needle 3's MLP gathers as the weights store them (null for Needle 2, and for a checkpoint, whose tree has none). */
    MlpPermutations mlpPermutations() throws WorkbenchException {
        return weights == null ? null : MlpPermutations.of(weights.tensors());
    }

    /** The weights as a Flax parameter tree ('/'-joined paths, kernels [in, out], layers stacked), built on first use. */
    Map<String, NpyArray> flaxParams() throws WorkbenchException {
        if (flaxParams == null) flaxParams = FlaxTree.of(weights);
        return flaxParams;
    }
}
