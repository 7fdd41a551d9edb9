package dev.needlewb.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.needlewb.engine.kernel.NumericMode;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A prompt whose shared prefix comes from the cache must compute what a plain native prefill computes, bit for bit
 * (tolerance 0: the same steps on copied state), and so must every later step: this holds only if the copy takes
 * all the state a step reads (KV cache with its window ring and sinks, token history, engram conv rings,
 * position). The prefix is longer than the window so the ring has wrapped when it is copied.
 */
class PrefixCacheTest {
    private static final int WINDOW = 16;
    private static final int SINKS = 3;

    @ParameterizedTest
    @EnumSource(NumericMode.class)
    void cachedPrefixGivesThePlainPrefillsBits(NumericMode mode) throws Exception {
        int[] s040 = GoldenLogitsTest.tokens("s040");
        int prefix = 30;
        int[] first = s040;
        int[] second = Arrays.copyOf(s040, s040.length);
        for (int i = prefix; i < second.length; i++) second[i] = (second[i] * 7 + 11) % 200 + 3;
        try (Engine e = Engine.open(GoldenLogitsTest.cact(), new EngineOptions(mode, 1, WINDOW, SINKS, 128))) {
            PrefixCache cache = new PrefixCache(e, 2);
            Session reused = e.newSession();
            for (int[] prompt : new int[][] {first, second, first}) {
                reused.reset();
                Session plain = e.newSession();
                assertThat(cache.sharing(prefix).prefill(reused, prompt)).containsExactly(plain.prefill(prompt));
                assertThat(reused.position()).isEqualTo(plain.position());
                int next = 5;
                for (int i = 0; i < 24; i++) {
                    float[] expected = plain.step(next);
                    assertThat(reused.step(next)).as("step %d", i).containsExactly(expected);
                    next = (next * 31 + 7) % 200 + 3;
                }
            }
            assertThat(cache.misses()).isEqualTo(1);
            assertThat(cache.hits()).isEqualTo(2);
        }
    }

    @Test
    void aPromptThatIsThePrefixReturnsItsLogitsAndAnotherEnginesSessionIsRefused() throws Exception {
        int[] prompt = Arrays.copyOf(GoldenLogitsTest.tokens("s040"), 20);
        EngineOptions options = new EngineOptions(NumericMode.INT8, 1, WINDOW, SINKS, 64);
        try (Engine e = Engine.open(GoldenLogitsTest.cact(), options);
             Engine other = Engine.open(GoldenLogitsTest.cact(), options)) {
            PrefixCache cache = new PrefixCache(e, 1);
            float[] expected = e.newSession().prefill(prompt);
            assertThat(cache.sharing(prompt.length).prefill(e.newSession(), prompt)).containsExactly(expected);
            assertThat(cache.sharing(prompt.length).prefill(e.newSession(), prompt)).containsExactly(expected);
            assertThatThrownBy(() -> cache.sharing(prompt.length).prefill(other.newSession(), prompt))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("another engine");
        }
    }
}
