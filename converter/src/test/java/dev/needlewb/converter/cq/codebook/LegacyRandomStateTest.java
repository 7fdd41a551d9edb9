package dev.needlewb.converter.cq.codebook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    void seedMustBeUnsigned32Bit() {
        assertThatThrownBy(() -> new LegacyRandomState(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LegacyRandomState(1L << 32)).isInstanceOf(IllegalArgumentException.class);
    }
}
