package dev.needlewb.converter.flax.v3;

import dev.needlewb.core.io.NpyArray;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SequencedMap;

/**
 * A Needle 3 training checkpoint as upstream's {@code run.load_checkpoint} sees it: the config,
 * the parameters keyed by '/'-joined Flax paths in tree order (top-level {@code mtp_*} subtrees
 * dropped, as upstream drops them), the step ({@code null} if absent or None) and the {@code run} dict.
 */
public record V3Checkpoint(V3Config config, SequencedMap<String, NpyArray> params, Long step, Map<String, Object> run) {
    public V3Checkpoint {
        params = Collections.unmodifiableSequencedMap(new LinkedHashMap<>(params));
        run = Collections.unmodifiableMap(new LinkedHashMap<>(run));
    }
}
