package dev.needlewb.converter.convert;

import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.core.io.NpyArray;
import java.nio.file.Path;
import java.util.SequencedMap;

/**
 * A training checkpoint of any generation as the float64 reference reads it: the geometry its
 * config gives and its Flax parameter tree. The pickle is read once; its config says the
 * generation (routed in CheckpointGenerations), whose reader checks the rest: Needle 2's
 * checks every parameter's shape against the config, Needle 3's leaves that to the reference,
 * which names a missing or misshapen parameter by path.
 */
public record CheckpointParams(ModelGeometry geometry, SequencedMap<String, NpyArray> params) {
    public static CheckpointParams read(Path file, NonFinitePolicy nonFinite) throws WorkbenchException {
        return CheckpointGenerations.params(file, nonFinite);
    }
}
