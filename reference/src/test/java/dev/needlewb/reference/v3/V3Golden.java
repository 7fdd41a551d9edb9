package dev.needlewb.reference.v3;

import static org.junit.jupiter.api.Assertions.fail;

import dev.needlewb.converter.flax.v3.V3Checkpoint;
import dev.needlewb.converter.flax.v3.V3CheckpointReader;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.golden.Golden;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The golden Needle 3 mini model ({@code golden/v3mini}) and its inputs, built once per JVM. */
final class V3Golden {
    private static final Map<String, V3Model> MODELS = new ConcurrentHashMap<>();

    private V3Golden() {}

    static V3Checkpoint checkpoint() {
        try {
            return V3CheckpointReader.read(Golden.v3mini("mini3.ckpt.pkl"));
        } catch (WorkbenchException e) {
            return fail("golden v3 checkpoint does not load: " + e.getMessage());
        }
    }

    /**
     * The golden params {@code p}: {@code raw} = the float32 params of {@code mini3.ckpt.pkl} (read
     * with the converter's v3 checkpoint reader), {@code deq} = {@code deq_params.npz} (the .cact's
     * stored values mapped back to the tree); the config is the checkpoint's in both cases.
     */
    static V3Model model(String p) {
        return MODELS.computeIfAbsent(p, key -> {
            V3Checkpoint c = checkpoint();
            Map<String, NpyArray> params = switch (key) {
                case "raw" -> c.params();
                case "deq" -> Golden.npz(Golden.v3mini("deq_params.npz"));
                default -> throw new IllegalArgumentException("no golden params " + key);
            };
            try {
                return V3Model.load(params, c.config());
            } catch (WorkbenchException e) {
                return fail("golden " + key + " params do not load: " + e.getMessage());
            }
        });
    }

    static int[] tokens(String seq) {
        var node = Golden.json(Golden.v3mini("sequences.json")).get(seq).get("tokens");
        int[] t = new int[node.size()];
        for (int i = 0; i < t.length; i++) t[i] = node.get(i).asInt();
        return t;
    }

    static NpyArray array(String file, String key) {
        return Golden.array(Golden.v3mini(file), key);
    }
}
