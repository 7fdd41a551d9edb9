package dev.needlewb.converter.cq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Tag("width")
@Tag("kernel")
class WeightChangeMeterTest {
    /** Group widths with and without a scalar tail (the last group of a row can be narrower). */
    @ParameterizedTest
    @ValueSource(ints = {128, 64, 100, 7, 1})
    void measuresTheChangeAndMovesTheValues(int n) {
        SplittableRandom random = new SplittableRandom(n);
        int calls = 50;
        float[] fresh = new float[calls * n];
        float[] weights = new float[calls * n];
        for (int i = 0; i < fresh.length; i++) {
            weights[i] = (float) (random.nextGaussian() * 0.02);
            fresh[i] = weights[i] + (float) (random.nextGaussian() * 1e-3);
        }
        double sum = 0;
        double max = 0;
        for (int i = 0; i < fresh.length; i++) {
            double d = (double) fresh[i] - weights[i];
            sum += d * d;
            max = Math.max(max, Math.abs(d));
        }
        WeightChangeMeter meter = new WeightChangeMeter();
        for (int c = 0; c < calls; c++) meter.replace(fresh, c * n, weights, c * n, n);
        CqGroupMap.Change change = meter.change();
        // Bounds stated on WeightChangeMeter: one float32 rounding of the largest difference;
        // the float32 lane sums of at most 128/16 + 2 roundings stay below 1e-6 relative.
        assertThat(change.maxAbs()).isCloseTo(max, within(max * 0x1p-24));
        assertThat(change.sumSquares()).isCloseTo(sum, within(sum * 1e-6));
        assertThat(weights).containsExactly(fresh);
    }
}
