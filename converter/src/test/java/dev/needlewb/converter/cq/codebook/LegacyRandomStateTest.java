package dev.needlewb.converter.cq.codebook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.needlewb.golden.Golden;
import java.util.Arrays;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class LegacyRandomStateTest {
    // Expected values printed by NumPy 2.4 (repr round-trips, so the comparisons are exact).

    @Test
    void uniformsMatchNumpyRandomSample() {
        LegacyRandomState r = new LegacyRandomState(0);
        assertThat(new double[] {r.nextDouble(), r.nextDouble(), r.nextDouble()})
                .containsExactly(0.5488135039273248, 0.7151893663724195, 0.6027633760716439);
    }

    @Test
    void gaussiansMatchNumpyRandnIncludingTheCachedSecondVariate() {
        assertThat(new LegacyRandomState(0).gaussians(6)).containsExactly(
                1.764052345967664, 0.4001572083672233, 0.9787379841057392,
                2.240893199201458, 1.8675579901499675, -0.977277879876411);
    }

    @Test
    void lastTwoOfTheCodebookSamplesMatchNumpy() {
        double[] x = new LegacyRandomState(0).gaussians(LloydMax.SAMPLES);
        assertThat(x[LloydMax.SAMPLES - 2]).isEqualTo(-0.1253056418630302);
        assertThat(x[LloydMax.SAMPLES - 1]).isEqualTo(0.5685704233306116);
    }

    @Test
    void permutationsMatchNumpyAtTheReleasedHadamardLength() {
        // RandomState(11 | 13).permutation(1024): the Needle 3 MLP permutations of d_model 768
        int[] p1 = new LegacyRandomState(11).permutation(1024);
        int[] p2 = new LegacyRandomState(13).permutation(1024);
        assertThat(Arrays.copyOf(p1, 8)).containsExactly(177, 777, 1006, 410, 709, 670, 932, 538);
        assertThat(Arrays.copyOfRange(p1, 1020, 1024)).containsExactly(91, 80, 703, 921);
        assertThat(Arrays.copyOf(p2, 8)).containsExactly(1013, 559, 1010, 70, 681, 0, 899, 702);
        assertThat(Arrays.copyOfRange(p2, 1020, 1024)).containsExactly(528, 74, 176, 338);
        assertThat(Arrays.stream(p1).sorted().toArray()).isEqualTo(IntStream.range(0, 1024).toArray());
    }

    @Test
    void permutationsMatchTheGoldenNeedle3File() {
        // hada_p1 / hada_p2 of the v3mini .cact (hada_n 128), stored as float32 integers
        var tensors = Golden.npz(Golden.v3mini("cact_tensors.npz"));
        var header = Golden.json(Golden.v3mini("cact_header.json"));
        int checked = 0;
        for (var t : header.get("tensors")) {
            String name = t.get("name").asText();
            if (!name.startsWith("hada_p")) continue;
            float[] stored = tensors.get(t.get("key").asText()).asFloats();
            int[] p = new LegacyRandomState(name.equals("hada_p1") ? 11 : 13).permutation(stored.length);
            for (int i = 0; i < p.length; i++) assertThat((float) p[i]).as("%s[%d]", name, i).isEqualTo(stored[i]);
            checked++;
        }
        assertThat(checked).isEqualTo(2);
    }

    @Test
    void permutationOfZeroAndOneElements() {
        assertThat(new LegacyRandomState(11).permutation(0)).isEmpty();
        assertThat(new LegacyRandomState(11).permutation(1)).containsExactly(0);
    }

    @Test
    void seedMustBeUnsigned32Bit() {
        assertThatThrownBy(() -> new LegacyRandomState(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LegacyRandomState(1L << 32)).isInstanceOf(IllegalArgumentException.class);
    }
}
