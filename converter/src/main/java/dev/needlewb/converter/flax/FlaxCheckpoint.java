package dev.needlewb.converter.flax;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SequencedMap;

/**
 * An upstream training checkpoint ({@code run.py}, format 2): the parameters keyed by
 * {@code /}-joined Flax paths in tree order, the {@code TransformerConfig} fields (tuples as
 * lists), the training step ({@code null} if absent or None) and the free-form {@code run} dict.
 */
public record FlaxCheckpoint(
        int formatVersion,
        SequencedMap<String, NpyArray> params,
        Map<String, Object> config,
        Long step,
        Map<String, Object> run) {

    /** The only format upstream's {@code load_checkpoint} accepts. */
    public static final int FORMAT_VERSION = 2;

    public FlaxCheckpoint {
        params = Collections.unmodifiableSequencedMap(new LinkedHashMap<>(params));
        config = Collections.unmodifiableMap(new LinkedHashMap<>(config));
        run = Collections.unmodifiableMap(new LinkedHashMap<>(run));
    }

    /** The typed view of {@link #config()}. */
    public FlaxConfig flaxConfig() throws WorkbenchException {
        return FlaxConfig.of(config);
    }

    /** The same checkpoint with other parameters (same paths expected, not checked here). */
    public FlaxCheckpoint withParams(SequencedMap<String, NpyArray> newParams) {
        return new FlaxCheckpoint(formatVersion, newParams, config, step, run);
    }
}
