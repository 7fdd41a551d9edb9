package dev.needlewb.engine.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The caches at head dims the exporter writes (even, any size: 8, 24, 40, 64, 72, 100), where a head ends
 * inside a vector at some width and the int8 cache's last block of a head is partial.
 */
@Tag("width")
@Tag("kernel")
class KvCacheTest {
    static final int KV = 64;

    private static float[] vectorFor(int pos, int width) {
        Random rnd = new Random(pos);
        float[] x = new float[width];
        for (int i = 0; i < width; i++) x[i] = (float) rnd.nextGaussian() * (1 + pos % 3);
        return x;
    }

    private static KvCache cache(boolean int8, int kvHeads, int headDim, int window, int sinks, int maxPositions) {
        return int8 ? new Int8KvCache(2, kvHeads, headDim, headDim, window, sinks, maxPositions)
                : new FloatKvCache(2, kvHeads, headDim, headDim, window, sinks, maxPositions);
    }

    /** The absolute maximum of the int8 block of head dimension {@code i} in {@code x} (blocks of 32 from the head's start). */
    private static double blockAbsmax(float[] x, int headOff, int headDim, int i) {
        int from = (i / Int8KvCache.BLOCK) * Int8KvCache.BLOCK, to = Math.min(from + Int8KvCache.BLOCK, headDim);
        double absmax = 0;
        for (int j = from; j < to; j++) absmax = Math.max(absmax, Math.abs(x[headOff + j]));
        return absmax;
    }

    @ParameterizedTest(name = "int8 {0}, head_dim {1}")
    @CsvSource({"false, 64", "true, 64", "false, 24", "true, 24", "false, 40", "true, 40", "true, 100", "false, 8"})
    void ringKeepsEveryVisiblePositionWithSinksPinned(boolean int8, int headDim) {
        int kvHeads = 2, kvDim = kvHeads * headDim;
        KvCache c = cache(int8, kvHeads, headDim, 21, 3, 100);
        float[] q = new float[headDim];
        float[] score = new float[100];
        for (int pos = 0; pos < 70; pos++) {
            float[] x = vectorFor(pos, kvDim);
            c.write(1, pos, x, 0, x, 0);
            int start = c.visibility().windowStart(pos);
            int sinkEnd = Math.min(3, start);
            for (int head = 0; head < kvHeads; head++) {
                for (int i = 0; i < headDim; i += 5) {
                    java.util.Arrays.fill(q, 0f);
                    q[i] = 1f;
                    // Sinks then the window, as attention asks: runs wrap around the ring and mix
                    // the 16-slot vector path with the one-by-one tail.
                    c.scores(1, 0, sinkEnd, head, q, 0, 1f, score, 0);
                    c.scores(1, start, pos + 1, head, q, 0, 1f, score, sinkEnd);
                    for (int n = 0; n < sinkEnd + pos + 1 - start; n++) {
                        int kpos = n < sinkEnd ? n : start + n - sinkEnd;
                        float[] want = vectorFor(kpos, kvDim);
                        // float: stored exactly; int8: within half a step (absmax / 254) of its block.
                        double tol = int8 ? blockAbsmax(want, head * headDim, headDim, i) / 254 + 1e-6 : 0;
                        assertThat((double) score[n]).as("pos %d key %d head %d dim %d", pos, kpos, head, i)
                                .isCloseTo(want[head * headDim + i], Offset.offset(tol));
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "head_dim {0}")
    @ValueSource(ints = {64, 40, 24, 8})
    void int8CacheIsWithinHalfAStepPerBlockOfAHead(int headDim) {
        int kvHeads = 2, kvDim = kvHeads * headDim;
        Int8KvCache c = new Int8KvCache(1, kvHeads, headDim, headDim, 0, 0, 10);
        Random rnd = new Random(5);
        for (int pos = 0; pos < 10; pos++) {
            float[] k = vectorFor(pos, kvDim);
            float[] v = vectorFor(pos + 100, kvDim);
            c.write(0, pos, k, 0, v, 0);
            for (int head = 0; head < kvHeads; head++) {
                int off = head * headDim;
                float[] q = new float[headDim];
                for (int i = 0; i < headDim; i++) q[i] = (float) rnd.nextGaussian();
                double exact = 0, bound = 0;
                for (int i = 0; i < headDim; i++) {
                    exact += (double) q[i] * k[off + i];
                    bound += Math.abs(q[i]) * blockAbsmax(k, off, headDim, i) / 127 / 2;
                }
                // Each stored key is within scale / 2 = absmax / 254 of the input; float slack 1e-5.
                float[] score = new float[1];
                c.scores(0, pos, pos + 1, head, q, 0, 1f, score, 0);
                assertThat((double) score[0]).isCloseTo(exact, Offset.offset(bound + 1e-5));
                float[] out = new float[headDim];
                c.accumulate(0, pos, pos + 1, head, new float[] {2f}, 0, out, 0);
                for (int i = 0; i < headDim; i++) {
                    assertThat((double) out[i]).isCloseTo(2.0 * v[off + i], Offset.offset(2 * blockAbsmax(v, off, headDim, i) / 254 + 1e-6));
                }
            }
        }
        // 1 layer x 10 positions x (K and V) x (kv_dim bytes + one float scale per block of each head).
        assertThat(c.bytes()).isEqualTo(10L * 2 * (kvDim + kvHeads * Math.ceilDiv(headDim, 32) * 4));
    }

    @ParameterizedTest(name = "int8 {0}, head_dim {1}")
    @CsvSource({"false, 64", "true, 64", "false, 40", "true, 40", "false, 24", "true, 24", "true, 72", "false, 100"})
    void pairedQueriesMatchSingleQueriesBitForBit(boolean int8, int headDim) {
        // Attention runs two query heads of a kv head through scores2/accumulate2; they must give
        // each query exactly what scores/accumulate give it (tolerance 0), across ring wraps and
        // both the 16-slot vector path and the one-by-one tail.
        int kvHeads = 2, kvDim = kvHeads * headDim;
        KvCache c = int8 ? new Int8KvCache(1, kvHeads, headDim, headDim, 37, 2, 200) : new FloatKvCache(1, kvHeads, headDim, headDim, 37, 2, 200);
        Random rnd = new Random(11);
        for (int pos = 0; pos < 90; pos++) {
            float[] k = new float[kvDim];
            float[] v = new float[kvDim];
            for (int i = 0; i < kvDim; i++) {
                k[i] = (float) rnd.nextGaussian();
                v[i] = (float) rnd.nextGaussian();
            }
            c.write(0, pos, k, 0, v, 0);
            float[] q = new float[2 * headDim];
            for (int i = 0; i < 2 * headDim; i++) q[i] = (float) rnd.nextGaussian();
            int start = c.visibility().windowStart(pos);
            int n = pos + 1 - start;
            float[] want0 = new float[n], want1 = new float[n], got0 = new float[n], got1 = new float[n];
            c.scores(0, start, pos + 1, 1, q, 0, 0.125f, want0, 0);
            c.scores(0, start, pos + 1, 1, q, headDim, 0.125f, want1, 0);
            c.scores2(0, start, pos + 1, 1, q, 0, 0.125f, got0, got1, 0);
            assertThat(got0).containsExactly(want0);
            assertThat(got1).containsExactly(want1);
            float[] wantOut = new float[2 * headDim];
            float[] gotOut = new float[2 * headDim];
            c.accumulate(0, start, pos + 1, 1, want0, 0, wantOut, 0);
            c.accumulate(0, start, pos + 1, 1, want1, 0, wantOut, headDim);
            c.accumulate2(0, start, pos + 1, 1, want0, want1, 0, gotOut, 0);
            assertThat(gotOut).containsExactly(wantOut);
        }
    }

    /**
     * A weighted value sum past the head's last whole vector is the same per-dimension chain in scalar:
     * every output equals the in-order fused multiply-add chain over the positions, computed here one
     * dimension at a time, at any width (tolerance 0).
     */
    @ParameterizedTest(name = "head_dim {0}")
    @ValueSource(ints = {8, 24, 40, 72, 100})
    void floatValueSumsAreOneFusedChainPerDimension(int headDim) {
        int kvHeads = 3, kvDim = kvHeads * headDim, positions = 33;
        FloatKvCache c = new FloatKvCache(1, kvHeads, headDim, headDim, 0, 0, positions);
        float[][] v = new float[positions][];
        for (int p = 0; p < positions; p++) {
            v[p] = vectorFor(p + 7, kvDim);
            c.write(0, p, vectorFor(p, kvDim), 0, v[p], 0);
        }
        float[] w = vectorFor(999, positions);
        for (int head = 0; head < kvHeads; head++) {
            float[] out = new float[headDim];
            c.accumulate(0, 0, positions, head, w, 0, out, 0);
            for (int i = 0; i < headDim; i++) {
                float acc = 0f;
                for (int p = 0; p < positions; p++) acc = Math.fma(v[p][head * headDim + i], w[p], acc);
                assertThat(out[i]).as("head %d dim %d", head, i).isEqualTo(acc);
            }
        }
    }

    /**
     * A header's max_seq_len of 2^31 - 1 (which the engine caps at {@link KvCache#positionLimit}, the most
     * one array per layer holds) allocates the first slots only, and the storage grows with the positions
     * written, keeping every value written before it grew.
     */
    @ParameterizedTest(name = "int8 {0}")
    @ValueSource(booleans = {false, true})
    void storageFollowsThePositionsWrittenNotTheMaximum(boolean int8) {
        int kvHeads = 2, headDim = 40, kvDim = kvHeads * headDim;
        KvCache c = cache(int8, kvHeads, headDim, 0, 0, KvCache.positionLimit(kvDim, 0, 0));
        long perSlot = c.bytes() / KvCache.INITIAL_SLOTS;
        assertThat(c.bytes()).isEqualTo(perSlot * KvCache.INITIAL_SLOTS);
        float[][] before = new float[KvCache.INITIAL_SLOTS + 300][];
        float[] q = new float[headDim];
        q[headDim - 1] = 1f;
        float[] score = new float[1];
        for (int pos = 0; pos < before.length; pos++) {
            c.write(0, pos, vectorFor(pos, kvDim), 0, vectorFor(pos, kvDim), 0);
            c.scores(0, pos, pos + 1, 1, q, 0, 1f, score, 0);
            before[pos] = new float[] {score[0]};
        }
        // 556 positions: 256 slots, then 512, then 1024 (doubling).
        assertThat(c.bytes()).isEqualTo(perSlot * 1024);
        for (int pos = 0; pos < before.length; pos++) {
            c.scores(0, pos, pos + 1, 1, q, 0, 1f, score, 0);
            assertThat(score[0]).as("position %d after the growth", pos).isEqualTo(before[pos][0]);
        }
    }

    @Test
    void aWindowBoundsTheStorageWhateverTheMaximum() {
        KvCache c = cache(true, 4, 100, 16, 2, Integer.MAX_VALUE);
        for (int pos = 0; pos < 1000; pos++) c.write(1, pos, vectorFor(pos, 400), 0, vectorFor(pos, 400), 0);
        assertThat(c.bytes()).isEqualTo(2L * 2 * 18 * (400 + 4 * 4 * 4));
        assertThat(KvCache.positionLimit(400, 16, 2)).isEqualTo(Integer.MAX_VALUE);
        assertThat(KvCache.positionLimit(400, 0, 0)).isEqualTo((Integer.MAX_VALUE - 1024) / 400);
    }

    /**
     * Needle 3: key and value heads of their own widths, rounded with one scale per whole head vector (upstream's
     * a8_fake_quant_kv): every stored key is rint(x / s) s with s = absmax(head) / 127, read back through a score
     * against a unit query, and every value through a weighted sum of weight 1; the float cache keeps them exact.
     */
    @ParameterizedTest(name = "int8 {0}, key head {1}, value head {2}")
    @CsvSource({"true, 48, 64", "true, 32, 48", "true, 12, 40", "false, 48, 64", "false, 14, 23"})
    void separateKeyAndValueWidthsPerHeadScales(boolean int8, int keyHead, int valueHead) {
        int kvHeads = 2;
        KvCache c = int8 ? new Int8KvCache(1, kvHeads, keyHead, valueHead, true, 0, 0, 8) : new FloatKvCache(1, kvHeads, keyHead, valueHead, 0, 0, 8);
        float[] k = vectorFor(3, kvHeads * keyHead), v = vectorFor(4, kvHeads * valueHead);
        c.write(0, 0, k, 0, v, 0);
        float[] q = new float[keyHead], score = new float[1], out = new float[valueHead];
        for (int head = 0; head < kvHeads; head++) {
            float keyScale = headScale(k, head * keyHead, keyHead), valueScale = headScale(v, head * valueHead, valueHead);
            for (int i = 0; i < keyHead; i++) {
                java.util.Arrays.fill(q, 0f);
                q[i] = 1f;
                c.scores(0, 0, 1, head, q, 0, 1f, score, 0);
                float x = k[head * keyHead + i];
                assertThat(score[0]).isEqualTo(int8 ? (float) Math.rint(x / keyScale) * keyScale : x);
            }
            java.util.Arrays.fill(out, 0f);
            c.accumulate(0, 0, 1, head, new float[] {1f}, 0, out, 0);
            for (int i = 0; i < valueHead; i++) {
                float x = v[head * valueHead + i];
                assertThat(out[i]).isEqualTo(int8 ? (float) Math.rint(x / valueScale) * valueScale : x);
            }
        }
    }

    private static float headScale(float[] x, int off, int n) {
        float absmax = 0f;
        for (int i = off; i < off + n; i++) absmax = Math.max(absmax, Math.abs(x[i]));
        return absmax / 127f;
    }
}
