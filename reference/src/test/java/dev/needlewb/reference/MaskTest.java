package dev.needlewb.reference;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Packing and window masks on the golden mini model (no golden item exists for packing). */
class MaskTest {
    @Test
    void packedSegmentsComputeLikeSeparateSequences() {
        int[] a = MiniGolden.tokens("s007");
        int[] b = Arrays.copyOfRange(MiniGolden.tokens("s040"), 0, 12);
        int[] packed = new int[a.length + b.length];
        int[] segments = new int[packed.length];
        System.arraycopy(a, 0, packed, 0, a.length);
        System.arraycopy(b, 0, packed, a.length, b.length);
        Arrays.fill(segments, 0, a.length, 1);
        Arrays.fill(segments, a.length, packed.length, 2);

        double[][] together = MiniGolden.deq().forward(packed, ForwardOptions.DEFAULT.withSegments(segments));
        double[][] alone = MiniGolden.deq().forward(b, ForwardOptions.DEFAULT);
        double[][] first = MiniGolden.deq().forward(a, ForwardOptions.DEFAULT);
        // Segment 2 sits at absolute RoPE positions 7.. instead of 0..: the scores depend only on the
        // relative position mathematically, numerically up to ~1e-15; the mask also cuts engram n-grams
        // and conv taps at the boundary, so segment 2 starts afresh.
        assertThat(MiniGolden.relativeError(MiniGolden.flat(Arrays.copyOfRange(together, a.length, packed.length)),
                MiniGolden.flat(alone))).isLessThan(1e-12);
        assertThat(MiniGolden.relativeError(MiniGolden.flat(Arrays.copyOfRange(together, 0, a.length)),
                MiniGolden.flat(first))).isLessThan(1e-12);
        // without the segments the second part sees the first: clearly different
        double[][] unpacked = MiniGolden.deq().forward(packed, ForwardOptions.DEFAULT);
        assertThat(MiniGolden.relativeError(MiniGolden.flat(Arrays.copyOfRange(unpacked, a.length, packed.length)),
                MiniGolden.flat(alone))).isGreaterThan(1e-3);
    }

    @Test
    void windowAndSinksDefineVisibility() {
        Mask m = Mask.sequence(new int[] {5, 0, 7, 8, 9, 10}, true, null, 2, new boolean[] {true});
        assertThat(m.visible(5, 5)).isTrue();
        assertThat(m.visible(5, 4)).isTrue();
        assertThat(m.visible(5, 3)).as("outside the window").isFalse();
        assertThat(m.visible(5, 0)).as("sink").isTrue();
        assertThat(m.visible(2, 1)).as("PAD key").isFalse();
        assertThat(m.visible(3, 4)).as("future").isFalse();
        Mask decode = Mask.decode(2, null);
        assertThat(decode.visible(5, 3)).isFalse();
        assertThat(decode.visible(5, 4)).isTrue();
        assertThat(Mask.decode(0, null).visible(100, 0)).isTrue();
    }

    @Test
    void aQueryThatSeesNothingAveragesAllKeysAsUpstreamMaskingDoes() {
        // a PAD first token under the padding mask hides the only key of row 0; upstream fills masked
        // scores with the most negative finite value, so the softmax of an all-masked row is uniform
        int[] tokens = {0, 280, 281};
        double[][] padded = MiniGolden.deq().forward(tokens, ForwardOptions.DEFAULT.withPaddingMask(true));
        assertThat(java.util.Arrays.stream(MiniGolden.flat(padded)).allMatch(Double::isFinite)).isTrue();
    }
}
