package dev.needlewb.reference;

import static org.junit.jupiter.api.Assertions.fail;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.flax.FlaxCheckpointReader;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.golden.Golden;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The golden mini model and its inputs, shared by the reference tests (built once per JVM). */
public final class MiniGolden {
    private static final Map<String, ReferenceModel> MODELS = new ConcurrentHashMap<>();

    private MiniGolden() {}

    /** The model over {@code deq_params.npz}: the .cact weights mapped back into the Flax tree. */
    static ReferenceModel deq() {
        return model("deq");
    }

    /**
     * The golden params {@code p}: {@code raw} = the float32 params of {@code mini.ckpt.pkl} (read with
     * the converter's Flax checkpoint reader), {@code deq} = {@code deq_params.npz}.
     */
    static ReferenceModel model(String p) {
        return MODELS.computeIfAbsent(p, key -> {
            try {
                Map<String, NpyArray> params = switch (key) {
                    case "raw" -> FlaxCheckpointReader.read(Golden.mini("mini.ckpt.pkl")).params();
                    case "deq" -> Golden.npz(Golden.mini("deq_params.npz"));
                    default -> throw new IllegalArgumentException("no golden params " + key);
                };
                return ReferenceModel.fromFlaxParams(params, Geometry.mini());
            } catch (WorkbenchException e) {
                return fail("golden " + key + " params do not load: " + e.getMessage());
            }
        });
    }

    static int[] tokens(String seq) {
        var node = Golden.json(Golden.mini("sequences.json")).get(seq).get("tokens");
        int[] t = new int[node.size()];
        for (int i = 0; i < t.length; i++) t[i] = node.get(i).asInt();
        return t;
    }

    static int prefill(String seq) {
        return Golden.json(Golden.mini("sequences.json")).get(seq).get("prefill").asInt();
    }

    static NpyArray array(String file, String key) {
        return Golden.array(Golden.mini(file), key);
    }

    /** The CQ-4 codebook for group 64 as the exporter builds it (float32, divided by sqrt(64)). */
    static float[] kvCodebook4() {
        return Golden.array(Golden.common("codebooks.npz"), "cb.b4.g64").asFloats();
    }

    static Path file(String name) {
        return Golden.mini(name);
    }

    public static double[] flat(double[][] rows) {
        return Arrays.stream(rows).flatMapToDouble(Arrays::stream).toArray();
    }

    public static double[] flat(double[][][] cube) {
        return Arrays.stream(cube).flatMap(Arrays::stream).flatMapToDouble(Arrays::stream).toArray();
    }

    /** max |got - expected| / max |expected| over the whole array. */
    public static double relativeError(double[] got, double[] expected) {
        if (got.length != expected.length) fail("length " + got.length + " != expected " + expected.length);
        double diff = 0;
        double scale = 0;
        for (int i = 0; i < got.length; i++) {
            diff = Math.max(diff, Math.abs(got[i] - expected[i]));
            scale = Math.max(scale, Math.abs(expected[i]));
        }
        return diff / scale;
    }
}
