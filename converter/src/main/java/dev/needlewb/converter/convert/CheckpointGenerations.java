package dev.needlewb.converter.convert;

import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.converter.flax.FlaxCheckpointReader;
import dev.needlewb.converter.flax.FlaxConfig;
import dev.needlewb.converter.flax.KvBudget;
import dev.needlewb.converter.flax.v3.V3CheckpointReader;
import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.converter.names.NameMap;
import dev.needlewb.converter.v2.V2Names;
import dev.needlewb.converter.flax.v3.V3ConfigGeometry;
import dev.needlewb.converter.flax.LoraAdapter;
import dev.needlewb.converter.v3.V3Checkpoints;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.Generation;
import java.nio.file.Path;
import java.util.Set;

/**
 * The converter's checkpoint registry: how a training checkpoint of each generation becomes
 * weights in {@code .cact} layout. The pickle's structure is read once, generation-neutral; its
 * config names the generation ({@link Generation#ofCheckpointConfig}). The one place the
 * converter switches on a checkpoint's generation (exhaustive, so a new one is listed here).
 */
final class CheckpointGenerations {
    /**
     * The weights and the checkpoint they came from (config, step, run and the leaves a
     * {@code .cact} does not hold, which a checkpoint output reuses).
     */
    record Read(ModelWeights weights, FlaxCheckpoint checkpoint) {}

    private CheckpointGenerations() {}

    /** The name map of the checkpoint in {@code file} (its parameters' shapes are not checked). */
    static NameMap names(Path file) throws WorkbenchException {
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
                yield new Read(V3Checkpoints.weights(file, merged, allowExtraParams, nonFinite), merged);
            }
        };
    }

    /**
     * The checkpoint given as {@code --config} (config, step, run and the leaves a {@code .cact}
     * lacks), checked as its generation's reader checks it.
     */
    static FlaxCheckpoint config(Path file, boolean allowExtraParams, NonFinitePolicy nonFinite) throws WorkbenchException {
        FlaxCheckpoint structure = FlaxCheckpointReader.readStructure(file);
        return switch (Generation.ofCheckpointConfig(structure.config().keySet())) {
            case NEEDLE2 -> FlaxCheckpointReader.checked(file, structure, allowExtraParams, nonFinite);
            case NEEDLE3 -> {
                V3CheckpointReader.of(file, structure); // its config as from_saved reads it
                if (nonFinite == NonFinitePolicy.REFUSE) FlaxCheckpointReader.refuseNonFinite(file, structure.params());
                yield structure;
            }
        };
    }

    /** Refuses weights a checkpoint of {@code meta}'s generation cannot hold (Needle 3: permutations other than upstream's draws). */
    static void checkCheckpointOutput(ModelWeights weights, FlaxCheckpoint meta) throws WorkbenchException {
        switch (generation(meta)) {
            case NEEDLE2 -> { }
            case NEEDLE3 -> V3Checkpoints.refuseUndrawnPermutations(weights, V3Config.fromSaved(meta.config()));
        }
    }

    /** The generation of a checkpoint read by this registry. */
    static Generation generation(FlaxCheckpoint ckpt) {
        return Generation.ofCheckpointConfig(ckpt.config().keySet());
    }

    /**
     * The name map of a state dict holding {@code torchKeys} whose model {@code ckpt}'s config
     * describes (the optional parts, such as probe heads, are those the dict holds).
     */
    static NameMap stateDictNames(FlaxCheckpoint ckpt, Set<String> torchKeys) throws WorkbenchException {
        return switch (generation(ckpt)) {
            case NEEDLE2 -> V2Names.of(ckpt.flaxConfig(), V2Names.partsOf(torchKeys), KvBudget.effectiveWindow(ckpt.flaxConfig()));
            case NEEDLE3 -> V3Checkpoints.stateDictNames(V3Config.fromSaved(ckpt.config()), torchKeys);
        };
    }

    /**
     * The bits map a checkpoint's config asks for, or null: Needle 2's {@code weight_bits}
     * (export.main reads it); Needle 3's exporter has no bits map and ignores the field.
     */
    static String weightBits(FlaxCheckpoint ckpt) {
        return switch (generation(ckpt)) {
            case NEEDLE2 -> ckpt.config().get("weight_bits") instanceof String s && !s.isBlank() ? s : null;
            case NEEDLE3 -> null;
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
