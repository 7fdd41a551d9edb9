package dev.needlewb.torch;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OpenMpWaitPolicyTest {
    /** Surefire's JVM has no policy of its own unless the caller exported one, which must then be kept. */
    @Test
    void setsPassiveInTheCEnvironmentUnlessTheUserChoseAPolicy() {
        String before = System.getenv(OpenMpWaitPolicy.VARIABLE);
        String inForce = OpenMpWaitPolicy.passiveUnlessSet();
        assertThat(inForce).isEqualTo(before != null ? before : OpenMpWaitPolicy.PASSIVE);
        assertThat(OpenMpWaitPolicy.passiveUnlessSet()).isEqualTo(inForce);
    }

    @Test
    void theTorchEngineReportsThePolicyItRunsWith() {
        String before = System.getenv(OpenMpWaitPolicy.VARIABLE);
        assertThat(new DjlTorchBackend().describe())
                .endsWith("OpenMP wait policy " + (before != null ? before : OpenMpWaitPolicy.PASSIVE) + ")");
    }
}
