package dev.needlewb.reference;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The production int8 KV emulation (not upstream, so no golden: exact structural properties). */
class KvRoundingTest {
    private static final int[] TOKENS = MiniGolden.tokens("s040");

    @Test
    void cachedKeysAndValuesAreInt8CodesTimesAFloat32ScalePer32() {
        Decoder decoder = MiniGolden.deq().decoder(TOKENS.length, ForwardOptions.DEFAULT.withInt8Kv(true));
        decoder.prefill(TOKENS);
        for (double[] cache : new double[][] {decoder.keys().asDoubles(), decoder.values().asDoubles()}) {
            for (int b = 0; b < cache.length; b += Int8KvQuant.BLOCK) {
                double absmax = 0;
                for (int i = 0; i < Int8KvQuant.BLOCK; i++) absmax = Math.max(absmax, Math.abs(cache[b + i]));
                // the largest element is stored as +-127 * scale, exactly, so the scale is recovered exactly
                double scale = absmax / 127;
                assertThat((double) (float) scale).as("scale is a float32").isEqualTo(scale);
                for (int i = 0; i < Int8KvQuant.BLOCK; i++) {
                    double code = cache[b + i] / scale;
                    assertThat(code).isEqualTo(Math.rint(code)).isBetween(-127.0, 127.0);
                }
            }
        }
    }

    @Test
    void fullSequenceAndCachedPathsRoundTheSameWay() {
        ForwardOptions int8 = ForwardOptions.DEFAULT.withInt8Kv(true);
        double[] full = MiniGolden.flat(MiniGolden.deq().forward(TOKENS, int8));
        double[] stepwise = MiniGolden.flat(DecodeGoldenTest.stepwise(MiniGolden.deq(), TOKENS, 8, int8));
        // same roundings of the same K/V rows; the rows themselves agree to a few ulps, which could in
        // principle flip a code, but the margin 1e-12 holds on this prompt (no near tie is recorded)
        assertThat(MiniGolden.relativeError(stepwise, full)).isLessThan(1e-12);
        double[] plain = MiniGolden.flat(MiniGolden.deq().forward(TOKENS, ForwardOptions.DEFAULT));
        // int8 with a scale per 32 perturbs K/V by about 0.4% of the block maximum: visible, not large
        assertThat(MiniGolden.relativeError(full, plain)).isBetween(1e-6, 5e-2);
    }

    @Test
    void kvBitsTakeTheExportersCodebook() {
        // the converter's codebook for 4 bits, group 64, is the golden common/codebooks.npz cb.b4.g64 exactly
        assertThat(ForwardOptions.DEFAULT.withKvBits(4).kvCodebook()).containsExactly(MiniGolden.kvCodebook4());
        assertThat(ForwardOptions.DEFAULT.withKvBits(4).kvGroup()).isEqualTo(64);
        assertThat(ForwardOptions.DEFAULT.withKvBits(8).kvBits()).isEqualTo(ForwardOptions.KV_BITS_OFF);
    }

    @Test
    void cqKvRoundingKeepsTheUnroundedPathWhenQuantIsOff() {
        ForwardOptions kv4 = ForwardOptions.DEFAULT.withKvCq(4, MiniGolden.kvCodebook4(), 64);
        // upstream's maybe_quant_kv only acts under quant=True
        assertThat(MiniGolden.flat(MiniGolden.deq().forward(TOKENS, kv4)))
                .containsExactly(MiniGolden.flat(MiniGolden.deq().forward(TOKENS, ForwardOptions.DEFAULT)));
    }
}
