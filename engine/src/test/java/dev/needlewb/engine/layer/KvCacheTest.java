package dev.needlewb.engine.layer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("width")
@Tag("kernel")
class KvCacheTest {
    static final int KV = 64;

    private static float[] vectorFor(int pos) {
        Random rnd = new Random(pos);
        float[] x = new float[KV];
        for (int i = 0; i < KV; i++) x[i] = (float) rnd.nextGaussian() * (1 + pos % 3);
        return x;
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void ringKeepsEveryVisiblePositionWithSinksPinned(boolean int8) {
        KvCache c = int8 ? new Int8KvCache(2, KV, 21, 3, 100) : new FloatKvCache(2, KV, 21, 3, 100);
        float[] q = new float[KV];
        float[] score = new float[100];
        for (int pos = 0; pos < 70; pos++) {
            float[] x = vectorFor(pos);
            c.write(1, pos, x, 0, x, 0);
            int start = c.visibility().windowStart(pos);
            int sinkEnd = Math.min(3, start);
            for (int i = 0; i < KV; i += 5) {
                java.util.Arrays.fill(q, 0f);
                q[i] = 1f;
                // Sinks then the window, as attention asks: runs wrap around the ring and mix
                // the 16-slot vector path with the one-by-one tail.
                c.scores(1, 0, sinkEnd, 0, KV, q, 0, 1f, score, 0);
                c.scores(1, start, pos + 1, 0, KV, q, 0, 1f, score, sinkEnd);
                for (int n = 0; n < sinkEnd + pos + 1 - start; n++) {
                    int kpos = n < sinkEnd ? n : start + n - sinkEnd;
                    float[] want = vectorFor(kpos);
                    double absmax = 0;
                    for (int j = (i / 32) * 32; j < (i / 32) * 32 + 32; j++) absmax = Math.max(absmax, Math.abs(want[j]));
                    // float: stored exactly; int8: within half a step (absmax / 254) of its block.
                    double tol = int8 ? absmax / 254 + 1e-6 : 0;
                    assertThat((double) score[n]).as("pos %d key %d dim %d", pos, kpos, i)
                            .isCloseTo(want[i], org.assertj.core.data.Offset.offset(tol));
                }
            }
        }
    }

    @Test
    void int8CacheIsWithinHalfAStepPerBlockOf32() {
        Int8KvCache c = new Int8KvCache(1, KV, 0, 0, 10);
        Random rnd = new Random(5);
        for (int pos = 0; pos < 10; pos++) {
            float[] k = vectorFor(pos);
            float[] v = vectorFor(pos + 100);
            c.write(0, pos, k, 0, v, 0);
            float[] q = new float[KV];
            for (int i = 0; i < KV; i++) q[i] = (float) rnd.nextGaussian();
            for (int off = 0; off < KV; off += 32) {
                double exact = 0, bound = 0, absmax = 0;
                for (int i = off; i < off + 32; i++) absmax = Math.max(absmax, Math.abs(k[i]));
                for (int i = off; i < off + 32; i++) {
                    exact += (double) q[i] * k[i];
                    bound += Math.abs(q[i]) * absmax / 127 / 2;
                }
                // Each stored key is within scale / 2 = absmax / 254 of the input; float slack 1e-5.
                float[] score = new float[1];
                c.scores(0, pos, pos + 1, off, 32, q, off, 1f, score, 0);
                assertThat((double) score[0]).isCloseTo(exact, org.assertj.core.data.Offset.offset(bound + 1e-5));
            }
            float[] out = new float[KV];
            c.accumulate(0, pos, pos + 1, 0, KV, new float[] {2f}, 0, out, 0);
            for (int b = 0; b < KV; b += 32) {
                double absmax = 0;
                for (int i = b; i < b + 32; i++) absmax = Math.max(absmax, Math.abs(v[i]));
                for (int i = b; i < b + 32; i++) {
                    assertThat((double) out[i]).isCloseTo(2.0 * v[i], org.assertj.core.data.Offset.offset(2 * absmax / 254 + 1e-6));
                }
            }
        }
        // 1 layer x 10 positions x (K and V) x (64 bytes + 2 scales).
        assertThat(c.bytes()).isEqualTo(10L * 2 * (64 + 2 * 4));
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void pairedQueriesMatchSingleQueriesBitForBit(boolean int8) {
        // Attention runs two query heads of a kv head through scores2/accumulate2; they must give
        // each query exactly what scores/accumulate give it (tolerance 0), across ring wraps and
        // both the 16-slot vector path and the one-by-one tail.
        KvCache c = int8 ? new Int8KvCache(1, 2 * KV, 37, 2, 200) : new FloatKvCache(1, 2 * KV, 37, 2, 200);
        Random rnd = new Random(11);
        for (int pos = 0; pos < 90; pos++) {
            float[] k = new float[2 * KV];
            float[] v = new float[2 * KV];
            for (int i = 0; i < 2 * KV; i++) {
                k[i] = (float) rnd.nextGaussian();
                v[i] = (float) rnd.nextGaussian();
            }
            c.write(0, pos, k, 0, v, 0);
            float[] q = new float[2 * KV];
            for (int i = 0; i < 2 * KV; i++) q[i] = (float) rnd.nextGaussian();
            int start = c.visibility().windowStart(pos);
            int n = pos + 1 - start;
            float[] want0 = new float[n], want1 = new float[n], got0 = new float[n], got1 = new float[n];
            c.scores(0, start, pos + 1, KV, KV, q, 0, 0.125f, want0, 0);
            c.scores(0, start, pos + 1, KV, KV, q, KV, 0.125f, want1, 0);
            c.scores2(0, start, pos + 1, KV, KV, q, 0, 0.125f, got0, got1, 0);
            assertThat(got0).containsExactly(want0);
            assertThat(got1).containsExactly(want1);
            float[] wantOut = new float[2 * KV];
            float[] gotOut = new float[2 * KV];
            c.accumulate(0, start, pos + 1, KV, KV, want0, 0, wantOut, 0);
            c.accumulate(0, start, pos + 1, KV, KV, want1, 0, wantOut, KV);
            c.accumulate2(0, start, pos + 1, KV, KV, want0, want1, 0, gotOut, 0);
            assertThat(gotOut).containsExactly(wantOut);
        }
    }
}
