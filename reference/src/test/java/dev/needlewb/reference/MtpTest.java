package dev.needlewb.reference;

import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.v2.Geometry;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The MTP branch. The golden mini checkpoint has no mtp_* parameters, so there is no upstream
 * number to compare with: these are structural properties on random parameters.
 */
class MtpTest {
    private static final Geometry G = Geometry.mini();
    private static final Map<String, NpyArray> WITH_MTP = SyntheticParams.flax(G, 32, true, 3);
    private static final int[] TOKENS = {2, 40, 41, 40, 41, 300, 7, 8, 9, 10};

    @Test
    void mtpParametersDoNotChangeTheLmLogits() throws WorkbenchException {
        Map<String, NpyArray> without = WITH_MTP.entrySet().stream().filter(e -> !e.getKey().startsWith("mtp_"))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        ReferenceModel a = ReferenceModel.fromFlaxParams(WITH_MTP, G);
        ReferenceModel b = ReferenceModel.fromFlaxParams(without, G);
        assertThat(a.hasMtp()).isTrue();
        assertThat(b.hasMtp()).isFalse();
        assertThat(MiniGolden.flat(a.forward(TOKENS, ForwardOptions.DEFAULT)))
                .containsExactly(MiniGolden.flat(b.forward(TOKENS, ForwardOptions.DEFAULT)));
        refused(ErrorKind.MISSING_KEY, () -> b.mtpLogits(TOKENS, ForwardOptions.DEFAULT));
    }

    @Test
    void mtpRowTDependsOnTokensUpToTPlusOneOnly() throws WorkbenchException {
        ReferenceModel m = ReferenceModel.fromFlaxParams(WITH_MTP, G);
        double[][] base = m.mtpLogits(TOKENS, ForwardOptions.DEFAULT);
        int[] changed = TOKENS.clone();
        changed[6] = 99;
        double[][] other = m.mtpLogits(changed, ForwardOptions.DEFAULT);
        // rows 0..4 see tokens 0..5 only: equal up to BLAS blocking (ulps); row 5 reads token 6 as its next token
        assertThat(MiniGolden.relativeError(MiniGolden.flat(Arrays.copyOf(other, 5)), MiniGolden.flat(Arrays.copyOf(base, 5))))
                .isLessThan(1e-12);
        assertThat(MiniGolden.relativeError(other[5], base[5])).isGreaterThan(1e-6);

        // the last row's next token is PAD: appending a PAD token leaves that row unchanged
        int[] extended = Arrays.copyOf(TOKENS, TOKENS.length + 1);
        double[][] longer = m.mtpLogits(extended, ForwardOptions.DEFAULT);
        assertThat(MiniGolden.relativeError(longer[TOKENS.length - 1], base[TOKENS.length - 1])).isLessThan(1e-12);
        assertThat(base[0]).hasSize(G.vocab());
    }

    @Test
    void quantAppliesToTheMtpBranchToo() throws WorkbenchException {
        ReferenceModel m = ReferenceModel.fromFlaxParams(WITH_MTP, G);
        double[] plain = MiniGolden.flat(m.mtpLogits(TOKENS, ForwardOptions.DEFAULT));
        double[] quant = MiniGolden.flat(m.mtpLogits(TOKENS, ForwardOptions.DEFAULT.withQuant(true)));
        // A8 rounding moves logits by about a percent (upstream's q1 vs q0 on mini: ~1e-2)
        assertThat(MiniGolden.relativeError(quant, plain)).isBetween(1e-5, 1e-1);
    }
}
