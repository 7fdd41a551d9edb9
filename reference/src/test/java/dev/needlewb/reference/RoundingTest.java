package dev.needlewb.reference;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The rounding primitives behind the fake quantizers. */
class RoundingTest {
    @Test
    void float16RoundingIsSingleStepFromDouble() {
        // exact float inputs round once: same as the JDK's float -> float16
        for (float f : new float[] {1.0f, 0.1f, 3.14159f, 65504f, 6.1e-5f, 1e-7f}) {
            assertThat(Float16Round.round(f)).isEqualTo(Float.float16ToFloat(Float.floatToFloat16(f)));
        }
        // 1 + 2^-11 is the midpoint of float16 1 and 1 + 2^-10; a hair above it must round up, but
        // going through float first lands on the midpoint and ties to even (down)
        double above = 1 + Math.scalb(1.0, -11) + Math.scalb(1.0, -40);
        assertThat(Float.float16ToFloat(Float.floatToFloat16((float) above))).isEqualTo(1.0f);
        assertThat(Float16Round.round(above)).isEqualTo(1 + Math.scalb(1.0, -10));
        assertThat(Float16Round.round(-above)).isEqualTo(-(1 + Math.scalb(1.0, -10)));
    }

    @Test
    void a8RoundsHalfToEvenWithAbsmaxScale() {
        // absmax 127 gives scale 1: the codes are the values rounded half to even
        double[] row = {127, 2.5, -2.5, 3.5, 0.49999999999, -127};
        QuantWatch watch = new QuantWatch();
        ActQuant.apply(row, 1, row.length, "test", 4, watch);
        assertThat(row).containsExactly(127, 2, -2, 4, 0, -127);
        assertThat(watch.ties()).extracting(QuantWatch.NearTie::index).containsExactly(1, 2, 3, 4);
        assertThat(watch.ties().getFirst().position()).isEqualTo(4);
        double[] zeros = new double[3];
        ActQuant.apply(zeros, 1, 3, "test", 0, null);
        assertThat(zeros).containsOnly(0.0);
    }

    @Test
    void hadamardIsOrthonormalInSylvesterOrder() {
        double[] x = {1, 0, 0, 0};
        Hadamard.transform(x, 0, 4, 0.5);
        assertThat(x).containsExactly(0.5, 0.5, 0.5, 0.5);
        double[] y = {0, 1, 0, 0};
        Hadamard.transform(y, 0, 4, 0.5);
        assertThat(y).containsExactly(0.5, -0.5, 0.5, -0.5);
        Hadamard.transform(y, 0, 4, 0.5);
        assertThat(y).containsExactly(0, 1, 0, 0);
        assertThat(Hadamard.paddedLength(512)).isEqualTo(512);
        assertThat(Hadamard.paddedLength(513)).isEqualTo(1024);
        assertThat(Hadamard.paddedLength(96)).isEqualTo(128);
    }
}
