package dev.needlewb.converter.flax;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.converter.convert.WeightSources;
import dev.needlewb.converter.convert.WeightTargets;
import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.core.io.NpyArray;
import java.util.LinkedHashMap;
import java.util.Map;

/** Weights as the Flax parameter tree the reference and the torch engine read ('/'-joined names, kernels [in, out]). */
public final class FlaxTree {
    private FlaxTree() {}

    public static Map<String, NpyArray> of(ModelWeights w) throws WorkbenchException {
        FlaxCheckpoint empty = new FlaxCheckpoint(FlaxCheckpoint.FORMAT_VERSION, new LinkedHashMap<>(), Map.of(), null, Map.of());
        return WeightTargets.checkpoint(w, empty).params();
    }

    /** An open .cact's weights, dequantized as upstream's read_export does. */
    public static Map<String, NpyArray> dequantized(CactFile cact) throws WorkbenchException {
        return of(WeightSources.fromCact(cact, false));
    }
}
