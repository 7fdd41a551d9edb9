package dev.needlewb.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.needlewb.engine.kernel.NumericMode;
import dev.needlewb.golden.Golden;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A prompt whose leading tokens come from the cache must compute what a plain native prefill computes, bit for
 * bit (tolerance 0: the same steps on restored state), and so must every later step: this holds only if the
 * restore puts back all the state a step reads (the KV slots of the window ring and the sinks, token history,
 * engram conv rings, position). The prompts are longer than the window, so rows are saved while the ring
 * wraps, and they branch before, inside and after the window's reach of each other, inside a held run (a split)
 * and at its end.
 */
class PrefixCacheTest {
    private static final int WINDOW = 16;
    private static final int SINKS = 3;
    private static final int LATER_STEPS = 24;

    @ParameterizedTest
    @EnumSource(NumericMode.class)
    void everyPromptGetsThePlainPrefillsBitsWhereverItBranches(NumericMode mode) throws Exception {
        int[] a = longPrompt(60);
        int[] b = changedFrom(a, 30, 1);
        int[] c = changedFrom(a, 10, 2);
        int[] d = changedFrom(b, 45, 3);
        int[] shorter = Arrays.copyOf(a, 25);
        int[] longer = Arrays.copyOf(a, 70);
        for (int i = 60; i < 70; i++) longer[i] = (i * 13) % 200 + 3;
        int[][] prompts = {a, b, c, d, a, shorter, longer, c};
        // Tokens a prompt shares with an earlier one (a whole held prompt still steps its last token).
        long expectedReuse = 0 + 30 + 10 + 45 + 59 + 24 + 60 + 59;
        try (Engine e = Engine.open(GoldenLogitsTest.cact(), new EngineOptions(mode, 1, WINDOW, SINKS, 128))) {
            PrefixCache cache = new PrefixCache(e, Long.MAX_VALUE);
            Session reused = e.newSession();
            for (int[] prompt : prompts) assertSameAsPlain(e, cache, reused, prompt);
            assertThat(cache.reusedTokens()).isEqualTo(expectedReuse);
            long total = 0;
            for (int[] p : prompts) total += p.length;
            assertThat(cache.steppedTokens()).isEqualTo(total - expectedReuse);
        }
    }

    /**
     * Needle 3 (golden v3mini: local layers in a 16-position ring, global layer 2 in a cache of every position,
     * a QKV conv of 3 taps): the rows of both caches and the conv's raw projections are restored, the same bits
     * as a plain prefill and every later step, wherever the prompts branch.
     */
    @ParameterizedTest
    @EnumSource(NumericMode.class)
    void needle3PromptsGetThePlainPrefillsBitsWhereverTheyBranch(NumericMode mode) throws Exception {
        int[] a = Arrays.copyOf(V3GoldenLogitsTest.tokens("s040"), 60);
        for (int i = 40; i < 60; i++) a[i] = a[i - 40] ^ 1;
        int[] b = changedFrom(a, 30, 1);
        int[] c = changedFrom(a, 2, 2);
        int[] d = changedFrom(b, 45, 3);
        int[] shorter = Arrays.copyOf(a, 25);
        int[][] prompts = {a, b, c, d, a, shorter, c};
        long expectedReuse = 0 + 30 + 2 + 45 + 59 + 24 + 59;
        try (Engine e = Engine.open(Golden.v3mini("mini3.cact"), EngineOptions.exact(128).withMode(mode))) {
            PrefixCache cache = new PrefixCache(e, Long.MAX_VALUE);
            Session reused = e.newSession();
            for (int[] prompt : prompts) assertSameAsPlain(e, cache, reused, prompt);
            assertThat(cache.reusedTokens()).isEqualTo(expectedReuse);
        }
    }

    @Test
    void aSessionPoolingProbeCellsIsPrefilledPlainly() throws Exception {
        int[] prompt = V3GoldenLogitsTest.tokens("s040");
        try (Engine e = Engine.open(Golden.v3mini("mini3.cact"), EngineOptions.exact(64))) {
            PrefixCache cache = new PrefixCache(e, Long.MAX_VALUE);
            cache.prefill(e.newSession(), prompt);
            Session pooling = e.newSession().poolingProbeCells();
            Session plain = e.newSession().poolingProbeCells();
            assertThat(cache.prefill(pooling, prompt)).containsExactly(plain.prefill(prompt));
            assertThat(pooling.probeHeads().confidenceLogit()).isEqualTo(plain.probeHeads().confidenceLogit());
            assertThat(cache.reusedTokens()).isZero();
        }
    }

    @Test
    void aBudgetSmallerThanTheRunsEvictsTheLeastRecentlyUsedAndKeepsTheBits() throws Exception {
        int[] a = longPrompt(50);
        try (Engine e = Engine.open(GoldenLogitsTest.cact(), new EngineOptions(NumericMode.INT8, 1, WINDOW, SINKS, 128))) {
            long perPosition = e.newSession().cache().newRows(0, 1).bytes();
            PrefixCache cache = new PrefixCache(e, 70 * perPosition);
            Session reused = e.newSession();
            for (int round = 0; round < 3; round++) {
                for (int branch = 20; branch <= 40; branch += 10) {
                    assertSameAsPlain(e, cache, reused, changedFrom(a, branch, round * 10 + branch));
                    assertThat(cache.heldBytes()).isLessThanOrEqualTo(70 * perPosition);
                }
            }
            assertThat(cache.reusedTokens()).isPositive();
        }
    }

    @Test
    void aSessionOfAnotherEngineIsRefusedAndOneAlreadyRunningIsPrefilledPlainly() throws Exception {
        int[] prompt = Arrays.copyOf(GoldenLogitsTest.tokens("s040"), 20);
        EngineOptions options = new EngineOptions(NumericMode.INT8, 1, WINDOW, SINKS, 64);
        try (Engine e = Engine.open(GoldenLogitsTest.cact(), options);
             Engine other = Engine.open(GoldenLogitsTest.cact(), options)) {
            PrefixCache cache = new PrefixCache(e, Long.MAX_VALUE);
            assertThatThrownBy(() -> cache.prefill(other.newSession(), prompt))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("another engine");
            Session running = e.newSession();
            running.prefill(new int[] {5, 6});
            Session plain = e.newSession();
            plain.prefill(new int[] {5, 6});
            assertThat(cache.prefill(running, prompt)).containsExactly(plain.prefill(prompt));
            assertThat(cache.reusedTokens() + cache.steppedTokens()).isZero();
        }
    }

    private static void assertSameAsPlain(Engine e, PrefixCache cache, Session reused, int[] prompt) {
        reused.reset();
        Session plain = e.newSession();
        assertThat(cache.prefill(reused, prompt)).as("prompt of %d", prompt.length).containsExactly(plain.prefill(prompt));
        assertThat(reused.position()).isEqualTo(plain.position());
        int next = 5;
        for (int i = 0; i < LATER_STEPS; i++) {
            float[] expected = plain.step(next);
            assertThat(reused.step(next)).as("step %d after a prompt of %d", i, prompt.length).containsExactly(expected);
            next = (next * 31 + 7) % 200 + 3;
        }
    }

    /** The golden prompt s040 continued to {@code length} tokens. */
    private static int[] longPrompt(int length) {
        int[] s040 = GoldenLogitsTest.tokens("s040");
        int[] p = Arrays.copyOf(s040, length);
        for (int i = s040.length; i < length; i++) p[i] = s040[i % s040.length] ^ 1;
        return p;
    }

    private static int[] changedFrom(int[] prompt, int from, int seed) {
        int[] p = prompt.clone();
        for (int i = from; i < p.length; i++) p[i] = (p[i] * 7 + 11 + seed) % 200 + 3;
        return p;
    }
}
