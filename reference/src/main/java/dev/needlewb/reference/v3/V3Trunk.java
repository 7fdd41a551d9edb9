package dev.needlewb.reference.v3;

import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.reference.ActQuant;
import dev.needlewb.reference.Engram;
import dev.needlewb.reference.LaneMixing;
import dev.needlewb.reference.Rope;
import dev.needlewb.reference.RunSettings;
import dev.needlewb.reference.Taps;

/**
 * The Needle 3 mHC stack ({@code Stack} / {@code _ScanBody.advance}) for positions
 * [pos, pos + count): embedding, engram keys/values under the model mask, then per layer the lane
 * mixing (A8 on the normalised stream in quant mode) around the Block, whose attention sees the
 * layer's mask (the model mask, cut to the sliding window unless the layer is global). Returns the
 * mean over lanes after the last layer, before the final norm.
 */
final class V3Trunk {
    private final V3Config c;
    private final V3Weights w;
    private final Rope rope;
    private final Engram.Layout engramLayout;

    V3Trunk(V3Config c, V3Weights w) {
        this.c = c;
        this.w = w;
        this.rope = new Rope(c.qkDim(), c.ropeTheta());
        this.engramLayout = V3Weights.engramLayout(c);
    }

    /** The scaled embedding rows {@code sqrt(d) * E[token]} of {@code tokens[from, from + count)}. */
    double[] embed(int[] tokens, int from, int count) {
        int d = c.dModel();
        double scale = Math.sqrt(d);
        double[] x = new double[count * d];
        for (int i = 0; i < count; i++) {
            int off = tokens[from + i] * d;
            for (int ch = 0; ch < d; ch++) x[i * d + ch] = w.embedding()[off + ch] * scale;
        }
        return x;
    }

    /**
     * @param tokens     the whole history: positions [0, pos + count)
     * @param mask       the model mask (causal, plus padding / window / sinks for hidden cells); it
     *                   also gates the engram n-grams and conv taps
     * @param layerMeans when not null, receives the lane mean after each layer ([layers][count * d])
     */
    double[] run(int[] tokens, int pos, int count, V3Cache cache, V3Mask mask, RunSettings s, double[][] layerMeans) {
        int d = c.dModel();
        int n = c.mhcLanes();
        Taps taps = s.taps();
        double[] x0 = embed(tokens, pos, count);
        if (taps.wants("embed")) taps.record("embed", x0, count, d);

        int[] sites = c.engramLayers();
        Engram.KeyValue[] engram = new Engram.KeyValue[sites.length];
        for (int site = 0; site < sites.length; site++) {
            engram[site] = Engram.compute(w.engrams().get(site), engramLayout, site, tokens, pos, count, mask, s.quant(), s.watch());
        }

        double[] lanes = new double[count * n * d];
        for (int i = 0; i < count; i++)
            for (int lane = 0; lane < n; lane++) System.arraycopy(x0, i * d, lanes, (i * n + lane) * d, d);

        Rope.Table table = rope.positions(pos, count);
        for (int l = 0; l < c.numLayers(); l++) {
            String tap = Taps.layer(l);
            if (taps.wants(tap, "lanes_in")) taps.record(tap + "lanes_in", lanes, count, n, d);
            LaneMixing.StreamRounding rounding = s.quant()
                    ? (nx, rows, width) -> ActQuant.apply(nx, rows, width, tap + "mhc_nx", pos, s.watch()) : null;
            LaneMixing mix = LaneMixing.compute(lanes, count, n, d, l % n, w.mhc().get(l), rounding);
            if (taps.wants(tap, "hpre")) taps.record(tap + "hpre", mix.hpre(), count, n);

            double[] u = mix.readIn(lanes, count, d);
            if (taps.wants(tap, "u")) taps.record(tap + "u", u, count, d);

            double[] blockIn = inject(u, count, l, engram, tap, taps);
            V3Mask layerMask = mask.layer(c.isGlobalLayer(l) ? 0 : c.slidingWindow());
            double[] block = V3Block.forward(blockIn, count, pos, w.blocks().get(l), c, w.permutations(), cache, l, table,
                    layerMask, s, tap);
            if (taps.wants(tap, "block_out")) taps.record(tap + "block_out", block, count, d);
            if (taps.wants(tap, "hpost")) taps.record(tap + "hpost", mix.hpost(), count, n);
            if (taps.wants(tap, "sinkhorn")) taps.record(tap + "sinkhorn", mix.residual(), count, n, n);

            lanes = mix.writeBack(lanes, block, u, count, d);
            if (taps.wants(tap, "lanes_out")) taps.record(tap + "lanes_out", lanes, count, n, d);
            if (layerMeans != null) layerMeans[l] = LaneMixing.laneMean(lanes, count, n, d);
        }
        return LaneMixing.laneMean(lanes, count, n, d);
    }

    /**
     * {@code u + sum_s alpha_s * v_s} over the engram sites of layer {@code l} (upstream sums every
     * site flagged for the layer), with {@code alpha_s = sigmoid(rms_unit(u) . rms_unit(k_s) / sqrt(d))}
     * from the same u. Tap {@code engram_alpha}: [count] for one site, [count, sites] for several.
     */
    private double[] inject(double[] u, int count, int l, Engram.KeyValue[] engram, String tap, Taps taps) {
        int[] sites = c.engramLayers();
        int here = 0;
        for (int site : sites) if (site == l) here++;
        if (here == 0) return u;
        int d = c.dModel();
        double[] ru = new double[d];
        double[] rk = new double[d];
        double[] alpha = new double[count * here];
        double[] out = u.clone();
        int k = 0;
        for (int site = 0; site < sites.length; site++) {
            if (sites[site] != l) continue;
            for (int i = 0; i < count; i++) alpha[i * here + k] = Engram.gate(u, engram[site].key(), i, d, ru, rk);
            k++;
        }
        for (int i = 0; i < count; i++) {
            for (int ch = 0; ch < d; ch++) {
                double add = 0;
                k = 0;
                for (int site = 0; site < sites.length; site++) {
                    if (sites[site] == l) add += alpha[i * here + k++] * engram[site].value()[i * d + ch];
                }
                out[i * d + ch] += add;
            }
        }
        if (taps.wants(tap, "engram_alpha")) {
            if (here == 1) taps.record(tap + "engram_alpha", alpha, count);
            else taps.record(tap + "engram_alpha", alpha, count, here);
        }
        return out;
    }
}
