package dev.needlewb.reference;

import dev.needlewb.core.v2.Geometry;

/**
 * The Needle 2 stack (upstream {@code Stack} / the layer loop of {@code decode._forward_cached})
 * for positions [pos, pos + count): the shared {@link MhcStack} around Needle 2's {@link Block}.
 * Returns the mean over lanes after the last layer, before the final norm.
 */
final class Trunk {
    static final int SINKHORN_ITERATIONS = 20;

    private final Geometry g;
    private final ReferenceWeights w;
    private final Rope rope;
    private final MhcStack stack;

    Trunk(Geometry g, ReferenceWeights w) {
        this.g = g;
        this.w = w;
        this.rope = new Rope(g.headDim(), g.ropeTheta());
        this.stack = new MhcStack(w.embedding(), g.dModel(), g.mhcLanes(), w.mhc(), w.engrams(), Engram.Layout.of(g),
                g.engramSites(), false);
    }

    Rope rope() {
        return rope;
    }

    /** The scaled embedding rows {@code sqrt(d) * E[token]} of {@code tokens[from, from + count)}. */
    double[] embed(int[] tokens, int from, int count) {
        return stack.embed(tokens, from, count);
    }

    /**
     * @param tokens     the whole history: positions [0, pos + count)
     * @param attention  the attention mask
     * @param engramMask the mask gating engram n-grams and conv taps
     * @param layerMeans when not null, receives the lane mean after each layer ([layers][count * d])
     */
    double[] run(int[] tokens, int pos, int count, KvCache cache, Mask attention, Mask engramMask, RunSettings s,
                 double[][] layerMeans) {
        Rope.Table table = rope.positions(pos, count);
        return stack.run(tokens, pos, count, engramMask, s,
                (l, in, tap) -> Block.forward(in, count, pos, w.blocks().get(l), g, cache, l, table, attention, s, tap),
                layerMeans);
    }
}
