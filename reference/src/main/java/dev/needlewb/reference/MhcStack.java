package dev.needlewb.reference;

import java.util.List;

/**
 * The mHC stack both generations share (upstream {@code Stack} / {@code _ScanBody.advance}) for
 * positions [pos, pos + count): the scaled embedding starts every lane, each engram site gives a
 * key and value, then per layer the lane mixing (h_pre, the Sinkhorn-projected residual mixing,
 * h_post) runs around the layer's Block, which the generation supplies, with the engram injection
 * of every site at that layer before it. Returns the mean over lanes after the last layer.
 *
 * @param embedding   the embedding table [vocab, d]
 * @param sites       the layer of each engram site
 * @param roundStream in quant mode, A8-round the mixing's normalised stream (Needle 3)
 */
public record MhcStack(double[] embedding, int dModel, int lanes, List<MhcWeights> mhc, List<EngramWeights> engrams,
                       Engram.Layout engramLayout, int[] sites, boolean roundStream) {

    /** One layer's Block at this call's positions: its output for {@code blockIn} [count, d]. */
    @FunctionalInterface
    public interface BlockStep {
        double[] forward(int layer, double[] blockIn, String tap);
    }

    public MhcStack {
        sites = sites.clone();
    }

    /** The scaled embedding rows {@code sqrt(d) * E[token]} of {@code tokens[from, from + count)}. */
    public double[] embed(int[] tokens, int from, int count) {
        int d = dModel;
        double scale = Math.sqrt(d);
        double[] x = new double[count * d];
        for (int i = 0; i < count; i++) {
            int off = tokens[from + i] * d;
            for (int c = 0; c < d; c++) x[i * d + c] = embedding[off + c] * scale;
        }
        return x;
    }

    /**
     * @param tokens     the whole history: positions [0, pos + count)
     * @param engramMask the mask gating engram n-grams and conv taps
     * @param layerMeans when not null, receives the lane mean after each layer ([layers][count * d])
     */
    public double[] run(int[] tokens, int pos, int count, Mask engramMask, RunSettings s, BlockStep block,
                        double[][] layerMeans) {
        int d = dModel;
        int n = lanes;
        Taps taps = s.taps();
        double[] x0 = embed(tokens, pos, count);
        if (taps.wants("embed")) taps.record("embed", x0, count, d);

        Engram.KeyValue[] engram = new Engram.KeyValue[sites.length];
        for (int site = 0; site < sites.length; site++) {
            engram[site] = Engram.compute(engrams.get(site), engramLayout, site, tokens, pos, count, engramMask, s.quant(), s.watch());
        }

        double[] lanes = new double[count * n * d];
        for (int i = 0; i < count; i++)
            for (int lane = 0; lane < n; lane++) System.arraycopy(x0, i * d, lanes, (i * n + lane) * d, d);

        for (int l = 0; l < mhc.size(); l++) {
            String tap = Taps.layer(l);
            if (taps.wants(tap, "lanes_in")) taps.record(tap + "lanes_in", lanes, count, n, d);
            LaneMixing.StreamRounding rounding = roundStream && s.quant()
                    ? (nx, rows, width) -> ActQuant.apply(nx, rows, width, tap + "mhc_nx", pos, s.watch()) : null;
            LaneMixing mix = LaneMixing.compute(lanes, count, n, d, l % n, mhc.get(l), rounding);
            if (taps.wants(tap, "hpre")) taps.record(tap + "hpre", mix.hpre(), count, n);

            double[] u = mix.readIn(lanes, count, d);
            if (taps.wants(tap, "u")) taps.record(tap + "u", u, count, d);

            double[] out = block.forward(l, inject(u, count, l, engram, tap, taps), tap);
            if (taps.wants(tap, "block_out")) taps.record(tap + "block_out", out, count, d);
            if (taps.wants(tap, "hpost")) taps.record(tap + "hpost", mix.hpost(), count, n);
            if (taps.wants(tap, "sinkhorn")) taps.record(tap + "sinkhorn", mix.residual(), count, n, n);

            lanes = mix.writeBack(lanes, out, u, count, d);
            if (taps.wants(tap, "lanes_out")) taps.record(tap + "lanes_out", lanes, count, n, d);
            if (layerMeans != null) layerMeans[l] = LaneMixing.laneMean(lanes, count, n, d);
        }
        return LaneMixing.laneMean(lanes, count, n, d);
    }

    /**
     * {@code u + sum_s alpha_s * v_s} over the engram sites at layer {@code l} (upstream adds every
     * site flagged for the layer), {@code alpha_s = sigmoid(rms_unit(u) . rms_unit(k_s) / sqrt(d))}
     * from the same u; u itself when no site is there. Tap {@code engram_alpha}: [count] for one
     * site, [count, sites] for several.
     */
    private double[] inject(double[] u, int count, int l, Engram.KeyValue[] engram, String tap, Taps taps) {
        int[] here = java.util.stream.IntStream.range(0, sites.length).filter(s -> sites[s] == l).toArray();
        if (here.length == 0) return u;
        int d = dModel;
        int k = here.length;
        double[] ru = new double[d];
        double[] rk = new double[d];
        double[] alpha = new double[count * k];
        for (int i = 0; i < count; i++)
            for (int j = 0; j < k; j++) alpha[i * k + j] = Engram.gate(u, engram[here[j]].key(), i, d, ru, rk);
        double[] out = new double[u.length];
        for (int i = 0; i < count; i++) {
            for (int c = 0; c < d; c++) {
                double add = alpha[i * k] * engram[here[0]].value()[i * d + c];
                for (int j = 1; j < k; j++) add += alpha[i * k + j] * engram[here[j]].value()[i * d + c];
                out[i * d + c] = u[i * d + c] + add;
            }
        }
        if (taps.wants(tap, "engram_alpha")) {
            if (k == 1) taps.record(tap + "engram_alpha", alpha, count);
            else taps.record(tap + "engram_alpha", alpha, count, k);
        }
        return out;
    }
}
