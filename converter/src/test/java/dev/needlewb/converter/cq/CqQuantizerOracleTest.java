package dev.needlewb.converter.cq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.golden.CqAudit;
import dev.needlewb.golden.Golden;
import dev.needlewb.oracle.ExactCq;
import dev.needlewb.oracle.GroupDecision;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The exact oracle (module {@code oracle}, no shared code) certifies every place where the
 * quantizer's codes or float16 norms differ from upstream's golden output or from the exact
 * decision: such a difference is only allowed where the exact unit coordinate (or norm) lies
 * within float32 rounding reach of the decision midpoint, so that either answer is a legitimate
 * rounding of the same exact value. Differences are counted and printed with their positions.
 */
class CqQuantizerOracleTest {
    private static final Path ROUNDTRIP = Golden.common("cq_roundtrip.npz");

    /** Counts and lists the differences of one matrix; fails on any difference the oracle does not certify. */
    private static final class Audit {
        final List<String> certified = new ArrayList<>();
        final List<String> uncertified = new ArrayList<>();

        void code(GroupDecision d, int element, int ours, int theirs, String where) {
            if (ours == theirs) return;
            String line = where + " ours " + ours + " other " + theirs + " exact " + d.codes()[element]
                    + " margin " + d.boundaryMargin()[element];
            (acceptable(d, element, ours) && acceptable(d, element, theirs) ? certified : uncertified).add(line);
        }

        void norm(GroupDecision d, short ours, short theirs, String where) {
            if (ours == theirs) return;
            String line = where + " norm ours " + Float.float16ToFloat(ours) + " other " + Float.float16ToFloat(theirs)
                    + " exact " + d.exactNorm().round(new java.math.MathContext(10));
            (acceptable(d, ours) && acceptable(d, theirs) ? certified : uncertified).add(line);
        }

        private static boolean acceptable(GroupDecision d, int element, int code) {
            return code == d.codes()[element] || d.certifiesCode(element, code);
        }

        private static boolean acceptable(GroupDecision d, short half) {
            return half == d.float16Norm() || d.certifiesNorm(half);
        }
    }

    @ParameterizedTest(name = "{0}.b{1} from .{2}")
    @CsvSource({
        "m1, 2, w", "m1, 3, w", "m1, 4, w", "m1, t, w", "m1, 2, deq", "m1, 3, deq", "m1, 4, deq", "m1, t, deq",
        "m2, 2, w", "m2, 3, w", "m2, 4, w", "m2, t, w", "m2, 2, deq", "m2, 3, deq", "m2, 4, deq", "m2, t, deq",
        "m3, 2, w", "m3, 3, w", "m3, 4, w", "m3, t, w", "m3, 2, deq", "m3, 3, deq", "m3, 4, deq", "m3, t, deq"
    })
    void everyDifferenceFromUpstreamIsCertified(String m, String b, String input) throws WorkbenchException {
        String prefix = m + ".b" + b + ".";
        NpyArray array = Golden.array(ROUNDTRIP, input.equals("w") ? m + ".w" : prefix + "deq");
        float[] w = array.asFloats();
        int rows = array.shape()[0];
        int cols = array.shape()[1];
        CqQuantizer quantizer = CqQuantizer.of(b.equals("t") ? 5 : Integer.parseInt(b), 128);
        CqCodes ours = quantizer.quantize(m, w, rows, cols);
        int[] upstreamCodes = Golden.array(ROUNDTRIP, prefix + (input.equals("w") ? "idx" : "idx2")).asInts();
        short[] upstreamNorms = Golden.array(ROUNDTRIP, prefix + (input.equals("w") ? "norms" : "norms2")).asHalfBits();

        Audit audit = new Audit();
        for (int r = 0; r < rows; r++) {
            for (int g = 0; g < ours.groupsPerRow(); g++) {
                GroupDecision d = ExactCq.decide(CqAudit.group(w, cols, r, g, 128), quantizer.codebook());
                for (int j = 0; j < 128; j++) {
                    int col = g * 128 + j;
                    audit.code(d, j, ours.code(r, col), upstreamCodes[r * ours.inPad() + col], "(" + r + ", " + col + ")");
                }
                audit.norm(d, ours.norm(r, g), upstreamNorms[r * ours.groupsPerRow() + g], "(" + r + ", group " + g + ")");
            }
        }
        System.out.printf("%s.b%s from .%s vs upstream: %d differences, all certified %s%n",
                m, b, input, audit.certified.size(), audit.certified);
        assertThat(audit.uncertified).isEmpty();
    }

    /** A million codes per width held to the exact decision ({@link CqAudit#addExact}: screened in float64, boundary groups decided by the oracle). */
    @ParameterizedTest(name = "record bits {0}")
    @CsvSource({"2", "4"})
    void nearBoundaryCodesInAMillionAreCertified(int bits) throws WorkbenchException {
        int rows = 2048;
        int cols = 512;
        Random random = new Random(7 * bits);
        float[] w = new float[rows * cols];
        for (int i = 0; i < w.length; i++) w[i] = (float) (random.nextGaussian() * 0.02);
        CqQuantizer quantizer = CqQuantizer.of(bits, 128);
        CqCodes ours = quantizer.quantize("random", w, rows, cols);
        CqAudit.Result r = new CqAudit().addExact("random", rows, cols, 128, CqAudit.codes(ours), w, quantizer.codebook()).result();
        System.out.printf("record bits %d: %d codes, %d groups near a boundary decided by the oracle, "
                + "%d differences from the exact decision, all certified %s%n",
                bits, r.codes(), r.screened(), r.certified().size(), r.certified());
        assertThat(r.codes()).isEqualTo((long) rows * cols);
        assertThat(r.uncertified()).isEmpty();
    }

    @ParameterizedTest(name = "record bits {0}, group {1}")
    @CsvSource({"2, 128", "3, 128", "4, 128", "5, 128", "2, 64", "4, 64"})
    void everyDifferenceFromTheExactDecisionIsCertified(int bits, int group) throws WorkbenchException {
        int rows = 16;
        int cols = 4 * group - 9; // a padded last group too
        Random random = new Random(100L * bits + group);
        float[] w = new float[rows * cols];
        for (int i = 0; i < w.length; i++) w[i] = (float) (random.nextGaussian() * 0.02);
        CqQuantizer quantizer = CqQuantizer.of(bits, group);
        CqCodes ours = quantizer.quantize("random", w, rows, cols);

        Audit audit = new Audit();
        for (int r = 0; r < rows; r++) {
            for (int g = 0; g < ours.groupsPerRow(); g++) {
                GroupDecision d = ExactCq.decide(CqAudit.group(w, cols, r, g, group), quantizer.codebook());
                int[] exact = d.codes();
                for (int j = 0; j < group; j++) {
                    audit.code(d, j, ours.code(r, g * group + j), exact[j], "(" + r + ", " + (g * group + j) + ")");
                }
                audit.norm(d, ours.norm(r, g), d.float16Norm(), "(" + r + ", group " + g + ")");
            }
        }
        System.out.printf("record bits %d, group %d: %d of %d codes/norms differ from the exact decision, all certified %s%n",
                bits, group, audit.certified.size(), rows * ours.inPad() + rows * ours.groupsPerRow(), audit.certified);
        assertThat(audit.uncertified).isEmpty();
    }
}
