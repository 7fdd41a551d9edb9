package dev.needlewb.reference.v3;

import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.reference.MhcStack;
import dev.needlewb.reference.Rope;
import dev.needlewb.reference.RunSettings;

/**
 * The Needle 3 stack ({@code Stack} / {@code _ScanBody.advance}) for positions [pos, pos + count):
 * the shared {@link MhcStack} (with A8 on the normalised stream in quant mode, and engram keys and
 * values under the model mask) around Needle 3's Block, whose attention sees the layer's mask
 * (the model mask, cut to the sliding window unless the layer is global). Returns the mean over
 * lanes after the last layer, before the final norm.
 */
final class V3Trunk {
    private final V3Config c;
    private final V3Weights w;
    private final Rope rope;
    private final MhcStack stack;

    V3Trunk(V3Config c, V3Weights w) {
        this.c = c;
        this.w = w;
        this.rope = new Rope(c.qkDim(), c.ropeTheta());
        this.stack = new MhcStack(w.embedding(), c.dModel(), c.mhcLanes(), w.mhc(), w.engrams(), V3Weights.engramLayout(c),
                c.engramLayers().stream().mapToInt(Integer::intValue).toArray(), true);
    }

    /** The scaled embedding rows {@code sqrt(d) * E[token]} of {@code tokens[from, from + count)}. */
    double[] embed(int[] tokens, int from, int count) {
        return stack.embed(tokens, from, count);
    }

    /**
     * @param tokens     the whole history: positions [0, pos + count)
     * @param mask       the model mask (causal, plus padding / window / sinks for hidden cells); it
     *                   also gates the engram n-grams and taps, and cut to a local layer's window
     *                   its attention and QKV conv taps
     * @param layerMeans when not null, receives the lane mean after each layer ([layers][count * d])
     */
    double[] run(int[] tokens, int pos, int count, V3Cache cache, V3Mask mask, RunSettings s, double[][] layerMeans) {
        Rope.Table table = rope.positions(pos, count);
        return stack.run(tokens, pos, count, mask, s, (l, in, tap) -> V3Block.forward(in, count, pos, w.blocks().get(l), c,
                w.permutations(), cache, l, table, mask.layer(c.isGlobalLayer(l) ? 0 : c.slidingWindow()), s, tap), layerMeans);
    }
}
