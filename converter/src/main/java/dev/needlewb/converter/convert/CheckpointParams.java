package dev.needlewb.converter.convert;

import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.converter.flax.FlaxCheckpointReader;
import dev.needlewb.converter.flax.FlaxConfig;
import dev.needlewb.converter.flax.KvBudget;
import dev.needlewb.converter.flax.v3.V3CheckpointReader;
import dev.needlewb.converter.flax.v3.V3ConfigGeometry;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.Generation;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.core.io.NpyArray;
import java.nio.file.Path;
import java.util.SequencedMap;

/**
 * A training checkpoint of any generation as the float64 reference reads it: the geometry its
 * config gives and its Flax parameter tree. The pickle is read once; its config says the
 * generation ({@link Generation#ofCheckpointConfig}), whose reader checks the rest: Needle 2's
 * checks every parameter's shape against the config, Needle 3's leaves that to the reference,
 * which names a missing or misshapen parameter by path.
 */
public record CheckpointParams(ModelGeometry geometry, SequencedMap<String, NpyArray> params) {
    public static CheckpointParams read(Path file, NonFinitePolicy nonFinite) throws WorkbenchException {
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
