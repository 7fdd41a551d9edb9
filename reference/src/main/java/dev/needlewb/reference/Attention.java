package dev.needlewb.reference;

import dev.needlewb.core.model.Geometry;

/**
 * Grouped-query attention of one Block for positions [pos, pos + count): projections, per-head
 * QK norm, half-split RoPE, optional KV rounding, the new K/V written into the cache, softmax over
 * the visible cached keys, sigmoid output gate, optional A8 rounding, out_proj.
 */
final class Attention {
    private Attention() {}

    /**
     * @param h     the normalised block input [count, d] (already A8-rounded when quant is on)
     * @param layer cache layer index to read and write
     * @param tap   tap prefix such as {@code layer07.}
     * @return the attention output [count, d]
     */
    static double[] forward(double[] h, int count, int pos, BlockWeights w, Geometry g, KvCache cache, int layer,
                            Rope.Table rope, Mask mask, RunSettings s, String tap) {
        int heads = g.numHeads();
        int kvHeads = g.numKvHeads();
        int hd = g.headDim();
        double[] q = w.q().apply(h, count);
        double[] k = w.k().apply(h, count);
        double[] v = w.v().apply(h, count);
        double[] gate = w.gate().apply(h, count);

        for (int i = 0; i < count; i++) {
            for (int head = 0; head < heads; head++) {
                int off = (i * heads + head) * hd;
                Norms.zcn(q, off, hd, w.qNorm(), 0, q, off);
                rope.rotate(q, off, i);
            }
            for (int head = 0; head < kvHeads; head++) {
                int off = (i * kvHeads + head) * hd;
                Norms.zcn(k, off, hd, w.kNorm(), 0, k, off);
                rope.rotate(k, off, i);
                if (s.kv() != null) {
                    s.kv().quantize(k, off, hd, tap + "k.head" + head, pos + i, s.watch());
                    s.kv().quantize(v, off, hd, tap + "v.head" + head, pos + i, s.watch());
                }
                System.arraycopy(k, off, cache.keys(layer, head), (pos + i) * hd, hd);
                System.arraycopy(v, off, cache.values(layer, head), (pos + i) * hd, hd);
            }
        }
        if (s.taps().wants(tap, "attn.q")) s.taps().record(tap + "attn.q", q, count, heads, hd);
        if (s.taps().wants(tap, "attn.k")) s.taps().record(tap + "attn.k", k, count, kvHeads, hd);
        if (s.taps().wants(tap, "attn.v")) s.taps().record(tap + "attn.v", v, count, kvHeads, hd);

        double[] o = new double[count * heads * hd];
        RowChunks.forEach(count, (from, to) -> attend(q, from, to, pos, pos + count, cache, layer, g, mask, o));
        for (int i = 0; i < o.length; i++) o[i] *= Norms.sigmoid(gate[i]);
        if (s.quant()) ActQuant.apply(o, count, heads * hd, tap + "attn_out", pos, s.watch());
        double[] out = w.out().apply(o, count);
        if (s.taps().wants(tap, "attn.out")) s.taps().record(tap + "attn.out", out, count, g.dModel());
        return out;
    }

    /**
     * The attention output {@code o} of this call's queries [from, to), every head; {@code keyCount}
     * is the number of cached keys after this call's were written.
     */
    private static void attend(double[] q, int from, int to, int pos, int keyCount, KvCache cache, int layer, Geometry g,
                               Mask mask, double[] o) {
        int heads = g.numHeads();
        int hd = g.headDim();
        int groupSize = heads / g.numKvHeads();
        double scale = Math.sqrt(hd);
        double[] weights = new double[keyCount];
        boolean[] visible = new boolean[keyCount];
        for (int i = from; i < to; i++) {
            int query = pos + i;
            // every mask is causal: keys after the query never count, unless none is visible at all
            int seen = 0;
            for (int key = 0; key <= query; key++) {
                visible[key] = mask.visible(query, key);
                if (visible[key]) seen++;
            }
            int span = seen == 0 ? keyCount : query + 1;
            for (int head = 0; head < heads; head++) {
                double[] keys = cache.keys(layer, head / groupSize);
                double[] values = cache.values(layer, head / groupSize);
                int qOff = (i * heads + head) * hd;
                if (seen == 0) java.util.Arrays.fill(weights, 0, span, 1.0 / span);
                else softmaxWeights(q, qOff, keys, hd, span, scale, visible, weights);
                for (int key = 0; key < span; key++) {
                    if (weights[key] != 0) Vec.axpy(weights[key], values, key * hd, o, qOff, hd);
                }
            }
        }
    }

    /**
     * Softmax of {@code q.k / sqrt(head_dim)} over the visible keys among [0, span); hidden keys
     * weigh exactly 0, as upstream's "most negative finite" fill gives after exp. (A query that sees
     * no key at all gets uniform weights over every key, which is what that fill yields.)
     */
    private static void softmaxWeights(double[] q, int qOff, double[] keys, int hd, int span, double scale,
                                       boolean[] visible, double[] weights) {
        double max = Double.NEGATIVE_INFINITY;
        for (int key = 0; key < span; key++) {
            if (visible[key]) {
                double score = Vec.dot(q, qOff, keys, key * hd, hd) / scale;
                weights[key] = score;
                max = Math.max(max, score);
            }
        }
        double sum = 0;
        for (int key = 0; key < span; key++) {
            double e = visible[key] ? Math.exp(weights[key] - max) : 0;
            weights[key] = e;
            sum += e;
        }
        for (int key = 0; key < span; key++) weights[key] /= sum;
    }
}
