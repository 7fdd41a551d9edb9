package dev.needlewb.engine.probe;

import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.v3.V3ProbeHead;
import dev.needlewb.converter.v3.V3Tensor;
import dev.needlewb.core.generation.Generation;
import java.util.Arrays;
import java.util.List;

/** Which probe heads of a file the engine runs: Needle 3's that it holds, in canonical order (Needle 2's heads pool otherwise: none). */
public final class ProbeHeadsPresent {
    private ProbeHeadsPresent() {}

    public static List<V3ProbeHead> in(CactFile file) {
        if (file.geometry().generation() != Generation.NEEDLE3) return List.of();
        return Arrays.stream(V3ProbeHead.values()).filter(h -> file.tensor(V3Tensor.HEAD_PROBES.nameFor(h)) != null).toList();
    }
}
