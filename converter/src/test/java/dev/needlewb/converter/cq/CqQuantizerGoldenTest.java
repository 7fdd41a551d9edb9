package dev.needlewb.converter.cq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.golden.Golden;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Codes and float16 norms against upstream's {@code export._cq_pack} on the golden matrices m1
 * (width not a multiple of the group), m2 (zero groups) and m3 (exact float32 ties), for every
 * bit width, both on the input ({@code .idx}, {@code .norms}) and on its dequantization
 * ({@code .idx2}, {@code .norms2}). Comparisons are exact: upstream's rotation rounds differently
 * from ours only near decision boundaries, and these cases have none (every difference found is
 * printed with its position, so a change shows where it is).
 */
@Tag("width")
class CqQuantizerGoldenTest {
    private static final Path ROUNDTRIP = Golden.common("cq_roundtrip.npz");
    private static final int GROUP = 128;

    static List<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (String m : new String[] {"m1", "m2", "m3"}) {
            for (String b : new String[] {"2", "3", "4", "t"}) {
                out.add(Arguments.of(m, b, "w", "idx", "norms"));
                out.add(Arguments.of(m, b, "deq", "idx2", "norms2"));
            }
        }
        return out;
    }

    @ParameterizedTest(name = "{0}.b{1} from .{2}")
    @MethodSource("cases")
    void codesAndNormsEqualUpstream(String m, String b, String input, String idxKey, String normsKey)
            throws WorkbenchException {
        NpyArray w = Golden.array(ROUNDTRIP, input.equals("w") ? m + ".w" : m + ".b" + b + ".deq");
        int rows = w.shape()[0];
        int cols = w.shape()[1];
        CqCodes q = CqQuantizer.of(b.equals("t") ? 5 : Integer.parseInt(b), GROUP)
                .quantize(m + "." + input, w.asFloats(), rows, cols);

        int[] expectedCodes = Golden.array(ROUNDTRIP, m + ".b" + b + "." + idxKey).asInts();
        short[] expectedNorms = Golden.array(ROUNDTRIP, m + ".b" + b + "." + normsKey).asHalfBits();
        List<String> differences = new ArrayList<>();
        for (int i = 0; i < expectedCodes.length; i++) {
            if (q.codes()[i] != expectedCodes[i]) {
                differences.add("code (" + i / q.inPad() + ", " + i % q.inPad() + ") ours " + q.codes()[i]
                        + " upstream " + expectedCodes[i]);
            }
        }
        for (int i = 0; i < expectedNorms.length; i++) {
            if (q.norms()[i] != expectedNorms[i]) {
                differences.add("norm (" + i / q.groupsPerRow() + ", " + i % q.groupsPerRow() + ") ours "
                        + Float.float16ToFloat(q.norms()[i]) + " upstream " + Float.float16ToFloat(expectedNorms[i]));
            }
        }
        System.out.printf("%s.b%s from .%s: %d codes and %d norms compared, %d differ from upstream %s%n", m, b,
                input, expectedCodes.length, expectedNorms.length, differences.size(), differences);
        assertThat(q.codes()).hasSize(expectedCodes.length);
        assertThat(differences).isEmpty();
    }
}
