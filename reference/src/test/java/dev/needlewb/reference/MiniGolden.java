package dev.needlewb.reference;

import static org.junit.jupiter.api.Assertions.fail;

import dev.needlewb.converter.WorkbenchException;
import dev.needlewb.converter.io.NpyArray;
import dev.needlewb.converter.model.Geometry;
import dev.needlewb.golden.Golden;
import java.nio.file.Path;
import java.util.Arrays;

/** The golden mini model and its inputs, shared by the reference tests (built once per JVM). */
final class MiniGolden {
    private static ReferenceModel deq;

    private MiniGolden() {}

    /** The model over {@code deq_params.npz}: the .cact weights mapped back into the Flax tree. */
    static synchronized ReferenceModel deq() {
        if (deq == null) {
            try {
                deq = ReferenceModel.fromFlaxParams(Golden.npz(Golden.mini("deq_params.npz")), Geometry.mini());
            } catch (WorkbenchException e) {
                fail("golden deq params do not load: " + e.getMessage());
            }
        }
        return deq;
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

    static double[] flat(double[][] rows) {
        return Arrays.stream(rows).flatMapToDouble(Arrays::stream).toArray();
    }

    static double[] flat(double[][][] cube) {
        return Arrays.stream(cube).flatMap(Arrays::stream).flatMapToDouble(Arrays::stream).toArray();
    }

    /** max |got - expected| / max |expected| over the whole array. */
    static double relativeError(double[] got, double[] expected) {
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
