package dev.needlewb.reference;

import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.v2.Geometry;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Bad parameters and bad calls give clear errors. */
class ApiErrorsTest {
    private static final Geometry G = Geometry.mini();

    @Test
    void missingOrMisshapedParametersAreNamed() {
        Map<String, NpyArray> params = new HashMap<>(SyntheticParams.flax(G, 16, false, 1));
        params.remove("stack/mhc_b_res");
        // the parameter is named in the wording only (these refusals carry no tensor field)
        assertThat(refused(ErrorKind.MISSING_KEY, () -> ReferenceModel.fromFlaxParams(params, G))).hasMessageContaining("stack/mhc_b_res");
        params.putAll(SyntheticParams.flax(G, 16, false, 1));
        params.put("stack/final_norm/scale", NpyArray.ofFloats(new int[] {64}, new float[64]));
        assertThat(refused(ErrorKind.SHAPE_MISMATCH, () -> ReferenceModel.fromFlaxParams(params, G))).hasMessageContaining("stack/final_norm/scale");
    }

    @Test
    void headsAreOptionalAndTheirWidthIsInferred() throws WorkbenchException {
        Map<String, NpyArray> params = new HashMap<>(SyntheticParams.flax(G, 16, false, 1));
        assertThat(ReferenceModel.fromFlaxParams(params, G).contrastiveDim()).isEqualTo(16);
        params.keySet().removeIf(k -> k.startsWith("contrastive_head/"));
        ReferenceModel m = ReferenceModel.fromFlaxParams(params, G);
        assertThat(m.hasContrastiveHead()).isFalse();
        assertThat(m.hasConfidenceHead()).isTrue();
        refused(ErrorKind.MISSING_KEY, () -> m.contrastive(new int[] {2, 3}, ForwardOptions.DEFAULT));
    }

    @Test
    void badCallsAreRejected() {
        ReferenceModel m = MiniGolden.deq();
        assertThatThrownBy(() -> m.forward(new int[] {2, 512}, ForwardOptions.DEFAULT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("position 1");
        assertThatThrownBy(() -> ForwardOptions.DEFAULT.withKvCq(4, null, 64))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("codebook");
        Decoder d = m.decoder(3, ForwardOptions.DEFAULT);
        d.prefill(new int[] {2, 5});
        assertThatThrownBy(() -> d.prefill(new int[] {2})).isInstanceOf(IllegalStateException.class);
        d.step(6);
        assertThatThrownBy(() -> d.step(7)).isInstanceOf(IllegalStateException.class).hasMessageContaining("capacity");
        assertThatThrownBy(() -> m.decoder(4, ForwardOptions.DEFAULT.withTaps(Taps.all())))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
