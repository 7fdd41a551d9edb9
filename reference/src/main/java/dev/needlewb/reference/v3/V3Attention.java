package dev.needlewb.reference.v3;

import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.reference.ActQuant;
import dev.needlewb.reference.Blas;
import dev.needlewb.reference.Norms;
import dev.needlewb.reference.Rope;
import dev.needlewb.reference.RowChunks;
import dev.needlewb.reference.RunSettings;
import dev.needlewb.reference.Taps;
import dev.needlewb.reference.Vec;

/**
 * Needle 3 grouped-query attention of one layer ({@code MultiHeadAttention}) for positions
 * [pos, pos + count): the q/k/v projections, the causal depthwise conv of the raw projections
 * (tap j reads position p - j when the layer's mask shows it; tap 0 always counts), per-head
 * q_norm / k_norm and half-split RoPE over qk, A8 on each query head and the KV rounding in quant
 * mode, softmax of {@code q.k / sqrt(qk)} over the visible keys of the layer (its window, for a
 * local layer), values of width v, the sigmoid gate (per channel or per head), A8, out_proj.
 */
final class V3Attention {
    private V3Attention() {}

    /**
     * @param h      the normalised block input [count, d] (already A8-rounded in quant mode)
     * @param mask   the layer's mask: the model mask, cut to the sliding window for a local layer
     * @param tap    tap prefix such as {@code layer07.}
     * @return the attention output [count, d]
     */
    static double[] forward(double[] h, int count, int pos, V3BlockWeights w, V3Config c, V3Cache cache, int layer,
                            Rope.Table rope, V3Mask mask, RunSettings s, String tap) {
        int heads = c.numHeads();
        int kvHeads = c.numKvHeads();
        int qk = c.qkDim();
        int vd = c.vDim();
        Taps taps = s.taps();
        double[] q = conv(w.q().apply(h, count), count, pos, w.qTaps(), cache.convTail(layer, V3Cache.Q), cache.tailRows(), mask);
        double[] k = conv(w.k().apply(h, count), count, pos, w.kTaps(), cache.convTail(layer, V3Cache.K), cache.tailRows(), mask);
        double[] v = conv(w.v().apply(h, count), count, pos, w.vTaps(), cache.convTail(layer, V3Cache.V), cache.tailRows(), mask);
        double[] gate = w.gate().apply(h, count);
        if (w.qTaps() != null) {
            if (taps.wants(tap, "attn.q_conv")) taps.record(tap + "attn.q_conv", q, count, heads * qk);
            if (taps.wants(tap, "attn.k_conv")) taps.record(tap + "attn.k_conv", k, count, kvHeads * qk);
            if (taps.wants(tap, "attn.v_conv")) taps.record(tap + "attn.v_conv", v, count, kvHeads * vd);
        }

        for (int i = 0; i < count; i++) {
            int p = pos + i;
            for (int head = 0; head < heads; head++) {
                int off = (i * heads + head) * qk;
                Norms.zcn(q, off, qk, w.qNorm(), 0, q, off);
                rope.rotate(q, off, i);
                if (s.quant()) ActQuant.row(q, off, qk, tap + "q.head" + head, p, s.watch());
            }
            for (int head = 0; head < kvHeads; head++) {
                int kOff = (i * kvHeads + head) * qk;
                int vOff = (i * kvHeads + head) * vd;
                Norms.zcn(k, kOff, qk, w.kNorm(), 0, k, kOff);
                rope.rotate(k, kOff, i);
                if (s.kv() != null) {
                    s.kv().quantize(k, kOff, qk, tap + "k.head" + head, p, s.watch());
                    s.kv().quantize(v, vOff, vd, tap + "v.head" + head, p, s.watch());
                }
                System.arraycopy(k, kOff, cache.keys(layer, head), p * qk, qk);
                System.arraycopy(v, vOff, cache.values(layer, head), p * vd, vd);
            }
        }
        if (taps.wants(tap, "attn.q")) taps.record(tap + "attn.q", q, count, heads, qk);
        if (taps.wants(tap, "attn.k")) taps.record(tap + "attn.k", k, count, kvHeads, qk);
        if (taps.wants(tap, "attn.v")) taps.record(tap + "attn.v", v, count, kvHeads, vd);

        double[] o = new double[count * heads * vd];
        RowChunks.forEach(count, (from, to) -> attend(q, from, to, pos, pos + count, cache, layer, c, mask, o));
        applyGate(o, gate, count, heads, vd, c.attentionGate());
        if (s.quant()) ActQuant.apply(o, count, heads * vd, tap + "attn_out", pos, s.watch());
        double[] out = w.out().apply(o, count);
        if (taps.wants(tap, "attn.out")) taps.record(tap + "attn.out", out, count, c.dModel());
        return out;
    }

    /**
     * The depthwise causal conv of raw projections {@code raw} [count, width] at positions from
     * {@code pos}: {@code sum_j taps[j] * raw(p - j)}, tap j > 0 counted when {@code mask} shows
     * p - j; rows before {@code pos} come from the cache's ring, which then takes the last rows of
     * this call. Returns {@code raw} itself when there are no taps.
     */
    private static double[] conv(double[] raw, int count, int pos, double[] taps, double[] ring, int ringRows, V3Mask mask) {
        if (taps == null) return raw;
        int width = raw.length / count;
        int nt = taps.length / width;
        double[] out = new double[raw.length];
        for (int i = 0; i < count; i++) {
            int p = pos + i;
            for (int ch = 0; ch < width; ch++) out[i * width + ch] = taps[ch] * raw[i * width + ch];
            for (int j = 1; j < nt; j++) {
                int src = p - j;
                if (src < 0 || !mask.visible(p, src)) continue;
                double[] rows = src >= pos ? raw : ring;
                int at = (src >= pos ? src - pos : src % ringRows) * width;
                for (int ch = 0; ch < width; ch++) out[i * width + ch] += taps[j * width + ch] * rows[at + ch];
            }
        }
        for (int p = Math.max(pos, pos + count - ringRows); p < pos + count; p++) {
            System.arraycopy(raw, (p - pos) * width, ring, (p % ringRows) * width, width);
        }
        return out;
    }

    /**
     * The output {@code o} [count, heads, v] of this call's queries [from, to) (at most one row
     * chunk); {@code keyCount} is the number of cached positions after this call's keys were
     * written. Per kv head, the keys any of these queries may see (the window of the first one up
     * to the last one) are one block: per query head, scores {@code Q K^T} and output {@code P V}
     * are two matrix products, the masked softmax between them.
     */
    private static void attend(double[] q, int from, int to, int pos, int keyCount, V3Cache cache, int layer, V3Config c,
                               V3Mask mask, double[] o) {
        int heads = c.numHeads();
        int qk = c.qkDim();
        int vd = c.vDim();
        int groupSize = heads / c.numKvHeads();
        int rows = to - from;
        int lo = mask.firstKey(pos + from);
        int span = pos + to - lo;
        boolean[] visible = new boolean[rows * span];
        boolean[] blind = visibility(mask, pos + from, rows, lo, span, visible);
        double scale = Math.sqrt(qk);
        double[] qh = new double[rows * qk];
        for (int g = 0; g < c.numKvHeads(); g++) {
            double[] keys = cache.keys(layer, g);
            double[] values = cache.values(layer, g);
            for (int head = g * groupSize; head < (g + 1) * groupSize; head++) {
                for (int r = 0; r < rows; r++) System.arraycopy(q, ((from + r) * heads + head) * qk, qh, r * qk, qk);
                double[] p = Blas.multiplyHere(qh, rows, qk, keys, lo * qk, span, true);
                for (int r = 0; r < rows; r++) softmax(p, r * span, span, scale, visible);
                double[] out = Blas.multiplyHere(p, rows, span, values, lo * vd, vd, false);
                for (int r = 0; r < rows; r++) {
                    int oOff = ((from + r) * heads + head) * vd;
                    if (blind[r]) uniform(values, keyCount, vd, o, oOff);
                    else System.arraycopy(out, r * vd, o, oOff, vd);
                }
            }
        }
    }

    /**
     * {@code visible[r * span + key - lo]} for the queries {@code first + r} and keys from
     * {@code lo}; returns which queries see no key at all.
     */
    private static boolean[] visibility(V3Mask mask, int first, int rows, int lo, int span, boolean[] visible) {
        boolean[] blind = new boolean[rows];
        for (int r = 0; r < rows; r++) {
            boolean any = false;
            for (int i = 0; i < span; i++) {
                boolean v = mask.visible(first + r, lo + i);
                visible[r * span + i] = v;
                any |= v;
            }
            blind[r] = !any;
        }
        return blind;
    }

    /**
     * In place over {@code s[off, off + n)}: {@code softmax(s / scale)} over the visible entries,
     * exactly 0 elsewhere, as upstream's "most negative finite" fill gives after exp (all 0 when
     * none is visible).
     */
    private static void softmax(double[] s, int off, int n, double scale, boolean[] visible) {
        double max = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            if (visible[off + i]) max = Math.max(max, s[off + i] / scale);
        }
        double sum = 0;
        for (int i = 0; i < n; i++) {
            double e = visible[off + i] ? Math.exp(s[off + i] / scale - max) : 0;
            s[off + i] = e;
            sum += e;
        }
        for (int i = 0; i < n; i++) s[off + i] = sum == 0 ? 0 : s[off + i] / sum;
    }

    /**
     * A query that sees no key at all (a PAD query under the padding mask) gets uniform weights
     * over every key, as upstream's "most negative finite" fill yields.
     */
    private static void uniform(double[] values, int keyCount, int vd, double[] o, int oOff) {
        for (int key = 0; key < keyCount; key++) Vec.axpy(1.0 / keyCount, values, key * vd, o, oOff, vd);
    }

    /** {@code o *= sigmoid(gate)}: per channel [count, heads * v], or per head [count, heads]. */
    private static void applyGate(double[] o, double[] gate, int count, int heads, int vd, V3Config.AttentionGate kind) {
        if (kind == V3Config.AttentionGate.ELEMENTWISE) {
            for (int i = 0; i < o.length; i++) o[i] *= Norms.sigmoid(gate[i]);
            return;
        }
        for (int i = 0; i < count * heads; i++) {
            double g = Norms.sigmoid(gate[i]);
            for (int ch = 0; ch < vd; ch++) o[i * vd + ch] *= g;
        }
    }
}
