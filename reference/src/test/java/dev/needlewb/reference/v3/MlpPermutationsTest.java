package dev.needlewb.reference.v3;

import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.golden.Golden;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class MlpPermutationsTest {
    @Test
    void theGoldenFileStoresThePermutationsOfItsConfig() throws WorkbenchException {
        MlpPermutations p = MlpPermutations.of(V3Golden.checkpoint().config());
        float[] p1 = Golden.npz(Golden.v3mini("cact_tensors.npz")).get("t118").asFloats();
        float[] p2 = Golden.npz(Golden.v3mini("cact_tensors.npz")).get("t119").asFloats();
        var names = Golden.json(Golden.v3mini("cact_header.json")).get("tensors");
        assertThat(names.get(118).get("name").asText()).isEqualTo("hada_p1");
        assertThat(names.get(119).get("name").asText()).isEqualTo("hada_p2");
        for (int i = 0; i < 128; i++) {
            assertThat((float) p.p1()[i]).isEqualTo(p1[i]);
            assertThat((float) p.p2()[i]).isEqualTo(p2[i]);
        }
        assertThat(MlpPermutations.checked(p.p1(), p.p2(), 128).p1()).isEqualTo(p.p1());
    }

    /** ladder_widths set: RandomState(s) on the first half, n/2 + RandomState(s + 977) on the second (numpy values). */
    @Test
    void splitPermutationsShuffleTheHalvesApart() {
        int[] p1 = MlpPermutations.of(SmallV3.with("d_model", 768L, "ladder_widths", List.of(384L))).p1();
        assertThat(Arrays.copyOf(p1, 6)).containsExactly(396, 445, 60, 115, 423, 146);
        assertThat(Arrays.copyOfRange(p1, 512, 518)).containsExactly(863, 980, 974, 722, 536, 934);
        assertThat(Arrays.stream(p1, 0, 512).allMatch(v -> v < 512)).isTrue();
    }

    @Test
    void filePermutationsAreChecked() {
        int[] id = new int[8];
        for (int i = 0; i < 8; i++) id[i] = i;
        int[] repeated = id.clone();
        repeated[3] = 2;
        // which permutation and entry is in the wording only
        assertThat(refused(ErrorKind.BAD_VALUE, () -> MlpPermutations.checked(id, repeated, 8))).hasMessageContaining("hada_p2[3] = 2");
        assertThat(refused(ErrorKind.SHAPE_MISMATCH, () -> MlpPermutations.checked(Arrays.copyOf(id, 7), id, 8))).hasMessageContaining("hada_p1 holds 7");
        int[] outside = id.clone();
        outside[0] = 8;
        assertThat(refused(ErrorKind.BAD_VALUE, () -> MlpPermutations.checked(outside, id, 8))).hasMessageContaining("hada_p1[0] = 8");
    }
}
