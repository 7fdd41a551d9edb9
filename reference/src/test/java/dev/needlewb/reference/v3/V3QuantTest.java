package dev.needlewb.reference.v3;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.golden.Golden;
import org.junit.jupiter.api.Test;

class V3QuantTest {
    /** kv_bits 4 uses the exporter's CQ-4 codebook for group 64 (the golden common codebooks). */
    @Test
    void kvCodebookAtFourBitsIsTheExportersGroup64Codebook() {
        float[] golden = Golden.array(Golden.common("codebooks.npz"), "cb.b4.g64").asFloats();
        assertThat(V3Quant.kvCodebook(4)).containsExactly(golden);
    }

    /** Needle 3's one-bit centres are analytic, +-sqrt(2/pi), not a Lloyd-Max iteration (quantize.py 80-82). */
    @Test
    void oneBitCodebookIsAnalytic() {
        float c = (float) (Math.sqrt(2 / Math.PI) / 8);
        assertThat(V3Quant.kvCodebook(1)).containsExactly(-c, c);
    }

    @Test
    void kvRoundingFollowsKvBits() {
        assertThat(V3Quant.kv(V3Options.DEFAULT)).as("quant off").isNull();
        assertThat(V3Quant.kv(V3Options.DEPLOY.withKvBits(0))).as("kv_bits 0").isNull();
        assertThat(V3Quant.kv(V3Options.DEPLOY)).isSameAs(V3Quant.A8_PER_HEAD);
        assertThat(V3Quant.kv(V3Options.DEPLOY.withKvBits(16))).isSameAs(V3Quant.A8_PER_HEAD);
        assertThat(V3Quant.kv(V3Options.DEPLOY.withKvBits(3))).isNotNull().isNotSameAs(V3Quant.A8_PER_HEAD);
    }
}
