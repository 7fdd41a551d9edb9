package dev.needlewb.reference;

import dev.needlewb.core.model.Geometry;

/**
 * The mHC stack (upstream {@code Stack} / the layer loop of {@code decode._forward_cached}) for
 * positions [pos, pos + count): embedding, engram keys/values, then per layer the lane mixing
 * (h_pre, Sinkhorn-projected residual mixing, h_post) around the Block. Returns the mean over
 * lanes after the last layer, before the final norm.
 */
final class Trunk {
    static final int SINKHORN_ITERATIONS = 20;

    private final Geometry g;
    private final ReferenceWeights w;
    private final Rope rope;
    private final Engram.Layout engramLayout;

    Trunk(Geometry g, ReferenceWeights w) {
        this.g = g;
        this.w = w;
        this.rope = new Rope(g.headDim(), g.ropeTheta());
        this.engramLayout = Engram.Layout.of(g);
    }

    Rope rope() {
        return rope;
    }

    /** The scaled embedding rows {@code sqrt(d) * E[token]} of {@code tokens[from, from + count)}. */
    double[] embed(int[] tokens, int from, int count) {
        int d = g.dModel();
        double scale = Math.sqrt(d);
        double[] x = new double[count * d];
        for (int i = 0; i < count; i++) {
            int off = tokens[from + i] * d;
            for (int c = 0; c < d; c++) x[i * d + c] = w.embedding()[off + c] * scale;
        }
        return x;
    }

    /**
     * @param tokens     the whole history: positions [0, pos + count)
     * @param attention  the attention mask
     * @param engramMask the mask gating engram n-grams and conv taps
     * @param layerMeans when not null, receives the lane mean after each layer ([layers][count * d])
     */
    double[] run(int[] tokens, int pos, int count, KvCache cache, Mask attention, Mask engramMask, RunSettings s,
                 double[][] layerMeans) {
        int d = g.dModel();
        int n = g.mhcLanes();
        Taps taps = s.taps();
        double[] x0 = embed(tokens, pos, count);
        if (taps.wants("embed")) taps.record("embed", x0, count, d);

        int[] sites = g.engramSites();
        Engram.KeyValue[] engram = new Engram.KeyValue[sites.length];
        for (int site = 0; site < sites.length; site++) {
            engram[site] = Engram.compute(w.engrams().get(site), engramLayout, site, tokens, pos, count, engramMask, s.quant(), s.watch());
        }

        double[] lanes = new double[count * n * d];
        for (int i = 0; i < count; i++)
            for (int lane = 0; lane < n; lane++) System.arraycopy(x0, i * d, lanes, (i * n + lane) * d, d);

        Rope.Table table = rope.positions(pos, count);
        for (int l = 0; l < g.numLayers(); l++) {
            String tap = Taps.layer(l);
            if (taps.wants(tap, "lanes_in")) taps.record(tap + "lanes_in", lanes, count, n, d);
            LaneMixing mix = LaneMixing.compute(lanes, count, n, d, l % n, w.mhc().get(l));
            if (taps.wants(tap, "hpre")) taps.record(tap + "hpre", mix.hpre(), count, n);

            double[] u = mix.readIn(lanes, count, d);
            if (taps.wants(tap, "u")) taps.record(tap + "u", u, count, d);

            double[] blockIn = u;
            int site = indexOf(sites, l);
            if (site >= 0) blockIn = inject(u, count, engram[site], tap, taps);
            double[] block = Block.forward(blockIn, count, pos, w.blocks().get(l), g, cache, l, table, attention, s, tap);
            if (taps.wants(tap, "block_out")) taps.record(tap + "block_out", block, count, d);
            if (taps.wants(tap, "hpost")) taps.record(tap + "hpost", mix.hpost(), count, n);
            if (taps.wants(tap, "sinkhorn")) taps.record(tap + "sinkhorn", mix.residual(), count, n, n);

            lanes = mix.writeBack(lanes, block, u, count, d);
            if (taps.wants(tap, "lanes_out")) taps.record(tap + "lanes_out", lanes, count, n, d);
            if (layerMeans != null) layerMeans[l] = LaneMixing.laneMean(lanes, count, n, d);
        }
        return LaneMixing.laneMean(lanes, count, n, d);
    }

    /** {@code u + sigmoid(rms_unit(u) . rms_unit(k) / sqrt(d)) * v}, row by row. */
    private double[] inject(double[] u, int count, Engram.KeyValue kv, String tap, Taps taps) {
        int d = g.dModel();
        double[] ru = new double[d];
        double[] rk = new double[d];
        double[] alpha = new double[count];
        double[] out = new double[u.length];
        for (int i = 0; i < count; i++) {
            alpha[i] = Engram.gate(u, kv.key(), i, d, ru, rk);
            for (int c = 0; c < d; c++) out[i * d + c] = u[i * d + c] + alpha[i] * kv.value()[i * d + c];
        }
        if (taps.wants(tap, "engram_alpha")) taps.record(tap + "engram_alpha", alpha, count);
        return out;
    }

    private static int indexOf(int[] values, int v) {
        for (int i = 0; i < values.length; i++) if (values[i] == v) return i;
        return -1;
    }
}
