package dev.needlewb.converter.convert;

import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.converter.flax.FlaxCheckpointReader;
import dev.needlewb.converter.flax.FlaxConfig;
import dev.needlewb.converter.flax.KvBudget;
import dev.needlewb.converter.flax.v3.V3CheckpointReader;
import dev.needlewb.converter.flax.v3.V3ConfigGeometry;
import dev.needlewb.converter.flax.LoraAdapter;
import dev.needlewb.converter.v3.V3Checkpoints;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.Generation;
import java.nio.file.Path;

/**
 * The converter's checkpoint registry: how a training checkpoint of each generation becomes
 * weights in {@code .cact} layout. The pickle's structure is read once, generation-neutral; its
 * config names the generation ({@link Generation#ofCheckpointConfig}). The one place the
 * converter switches on a checkpoint's generation (exhaustive, so a new one is listed here).
 */
final class CheckpointGenerations {
    /**
     * The weights and, for a Needle 2 checkpoint, the checkpoint itself (config, step and run a
     * checkpoint output reuses; its weight_bits); null for the generations that have no such use yet.
     */
    record Read(ModelWeights weights, FlaxCheckpoint needle2) {}

    private CheckpointGenerations() {}

    /** The name map of the checkpoint in {@code file} (its parameters' shapes are not checked). */
    static dev.needlewb.converter.names.NameMap names(Path file) throws WorkbenchException {
        FlaxCheckpoint structure = FlaxCheckpointReader.readStructure(file);
        return switch (Generation.ofCheckpointConfig(structure.config().keySet())) {
            case NEEDLE2 -> WeightSources.namesOf(FlaxCheckpointReader.checked(file, structure, true, NonFinitePolicy.ALLOW));
            case NEEDLE3 -> V3Checkpoints.names(file, structure);
        };
    }

    static Read read(Path file, Path lora, boolean allowExtraParams, NonFinitePolicy nonFinite) throws WorkbenchException {
        FlaxCheckpoint structure = FlaxCheckpointReader.readStructure(file);
        Generation g = Generation.ofCheckpointConfig(structure.config().keySet());
        return switch (g) {
            case NEEDLE2 -> {
                FlaxCheckpoint ckpt = FlaxCheckpointReader.checked(file, structure, allowExtraParams, nonFinite);
                if (lora != null) ckpt = LoraAdapter.read(lora, nonFinite).mergeInto(ckpt);
                yield new Read(WeightSources.fromCheckpoint(ckpt), ckpt);
            }
            case NEEDLE3 -> {
                // finetune.build_main merges into the loaded params before the export reads them
                FlaxCheckpoint merged = lora == null ? structure : LoraAdapter.read(lora, nonFinite).mergeInto(structure);
                yield new Read(V3Checkpoints.weights(file, merged, allowExtraParams, nonFinite), null);
            }
        };
    }

    /** The geometry and Flax tree the float64 reference reads from the checkpoint in {@code file}. */
    static CheckpointParams params(Path file, NonFinitePolicy nonFinite) throws WorkbenchException {
        FlaxCheckpoint structure = FlaxCheckpointReader.readStructure(file);
        CheckpointParams read = switch (Generation.ofCheckpointConfig(structure.config().keySet())) {
            case NEEDLE2 -> {
                FlaxCheckpoint ckpt = FlaxCheckpointReader.checked(file, structure, false, NonFinitePolicy.ALLOW);
                FlaxConfig config = ckpt.flaxConfig();
                yield new CheckpointParams(config.toGeometry(KvBudget.effectiveWindow(config)), ckpt.params());
            }
            case NEEDLE3 -> {
                var ckpt = V3CheckpointReader.of(file, structure);
                yield new CheckpointParams(new V3ConfigGeometry(ckpt.config()), ckpt.params());
            }
        };
        if (nonFinite == NonFinitePolicy.REFUSE) FlaxCheckpointReader.refuseNonFinite(file, read.params());
        return read;
    }
}
