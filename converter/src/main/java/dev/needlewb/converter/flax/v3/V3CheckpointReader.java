package dev.needlewb.converter.flax.v3;

import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.converter.flax.FlaxCheckpointReader;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.SequencedMap;

/**
 * Reads a Needle 3 checkpoint pickle (upstream {@code checkpoints.write_checkpoint}) through the
 * allow-listed unpickler: the structure every generation shares ({@link FlaxCheckpointReader#readStructure}),
 * then the config as {@code TransformerConfig.from_saved} reads it ({@link V3Config#fromSaved}).
 * The parameters are checked against the config by whoever reads them (the reference names a
 * missing or misshapen one by path); leaves the model does not read, such as {@code ab_scales},
 * are kept.
 */
public final class V3CheckpointReader {
    private V3CheckpointReader() {}

    public static V3Checkpoint read(Path file) throws WorkbenchException {
        return of(file, FlaxCheckpointReader.readStructure(file));
    }

    /** The Needle 3 checkpoint a structure read by {@link FlaxCheckpointReader#readStructure} holds. */
    public static V3Checkpoint of(Path file, FlaxCheckpoint raw) throws WorkbenchException {
        V3Config config;
        try {
            config = V3Config.fromSaved(raw.config());
        } catch (WorkbenchException e) {
            throw new FormatException(e.kind(), file, FormatException.NO_OFFSET, e.getMessage());
        }
        SequencedMap<String, NpyArray> params = new LinkedHashMap<>();
        raw.params().forEach((path, array) -> {
            if (!path.startsWith("mtp_")) params.put(path, array);
        });
        return new V3Checkpoint(config, params, raw.step(), raw.run());
    }
}
