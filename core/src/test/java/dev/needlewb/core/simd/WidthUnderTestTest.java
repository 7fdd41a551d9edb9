package dev.needlewb.core.simd;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Each surefire execution runs at the width its name says: {@code needle.test.vector.bits} is set by
 * the execution (the machine's own width when absent). Without this, a JVM flag that silently failed to
 * apply would make the narrow-width executions repeat the default one.
 */
@Tag("width")
@Tag("kernel")
class WidthUnderTestTest {
    @Test
    void kernelsRunAtTheExecutionsWidth() {
        int expected = Integer.getInteger("needle.test.vector.bits", VectorWidth.MACHINE_BITS);
        assertThat(VectorWidth.BITS).as(VectorWidth.describe()).isEqualTo(expected);
        assertThat(VectorWidth.FLOATS.vectorBitSize()).isEqualTo(expected);
        assertThat(VectorWidth.FLOAT_LANES).isEqualTo(expected / Float.SIZE);
    }

    @Test
    void aNarrowingFlagNarrowsWhatTheMachineCompiles() {
        // -XX:MaxVectorSize=16 / =32 lower SPECIES_PREFERRED itself; the forced 512-bit run leaves it alone.
        if (System.getProperty(VectorWidth.PROPERTY) == null && System.getProperty("needle.test.vector.bits") != null) {
            assertThat(VectorWidth.MACHINE_BITS).isEqualTo(Integer.getInteger("needle.test.vector.bits"));
            assertThat(VectorWidth.nativeWidth()).isTrue();
        }
    }

    @Test
    void theAvx2LikeExecutionHasAvx2sRegisters() {
        // width-256 also sets -XX:UseAVX=2: on x86 that leaves 16 vector registers, as on an AVX2
        // machine, so register-blocked kernels (DenseWeights) run their 16-register form there.
        boolean x86 = System.getProperty("os.arch").matches("amd64|x86_64");
        if (x86 && Integer.getInteger("needle.test.vector.bits", 0) == 256) assertThat(VectorWidth.registers()).isEqualTo(16);
        assertThat(VectorWidth.registers()).isIn(16, 32);
    }
}
