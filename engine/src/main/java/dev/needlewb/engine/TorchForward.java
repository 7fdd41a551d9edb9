package dev.needlewb.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import dev.needlewb.converter.model.EngramHash;
import dev.needlewb.converter.model.Geometry;
import dev.needlewb.engine.kernel.PackedCqMatrix;
import dev.needlewb.engine.layer.Engram;
import dev.needlewb.engine.layer.Norms;
import dev.needlewb.engine.layer.Sinkhorn;

/**
 * The full-sequence forward of a prompt from position 0 in float32 torch ops: the function
 * {@link Session#step} computes in exact mode, for all positions at once (SPEC section 2 with the
 * engine's window and sinks). Every intermediate is created in the caller's {@link NDManager} (each
 * op is called on an activation, so results attach to the activation's manager; the two products
 * with a weight on the left are moved there explicitly) and each layer's are freed when it ends.
 * The embedding rows and engram table rows are gathered with the engine's decoder; the 4x4
 * Sinkhorn runs per position with the engine's own {@link Sinkhorn}. Keys and values of each layer
 * go to a {@link KvSink} as soon as they exist.
 */
final class TorchForward {
    /** Receives {@code k} and {@code v} of one layer, {@code [positions, kv_dim]} row-major. */
    interface KvSink {
        void layer(int layer, float[] k, float[] v);
    }

    private final ModelWeights w;
    private final DenseWeights dense;
    private final Geometry g;
    private final int d, lanes, heads, kvHeads, headDim, half;
    private final int[] siteOfLayer;

    TorchForward(ModelWeights w, DenseWeights dense) {
        this.w = w;
        this.dense = dense;
        this.g = w.g;
        d = g.dModel();
        lanes = g.mhcLanes();
        heads = g.numHeads();
        kvHeads = g.numKvHeads();
        headDim = g.headDim();
        half = headDim / 2;
        siteOfLayer = new int[g.numLayers()];
        java.util.Arrays.fill(siteOfLayer, -1);
        for (int s = 0; s < g.numEngramSites(); s++) siteOfLayer[g.engramSites()[s]] = s;
    }

    /**
     * Runs {@code tokens} (positions 0..T-1) with the attention pattern of {@code window} and
     * {@code sinks} (window 0 = causal only). Returns the logits {@code [T, vocab]} when
     * {@code allLogits}, else those of the last position {@code [1, vocab]}.
     */
    NDArray run(NDManager m, int[] tokens, int window, int sinks, boolean allLogits, KvSink kv, BatchTaps taps) {
        int t = tokens.length;
        NDArray x = m.create(embeddings(tokens), new Shape(t, d));
        taps.record("embed", x, d);
        NDArray lanesX = x.expandDims(1).repeat(1, lanes);
        Rotation rope = rotation(m, t);
        NDArray mask = m.create(mask(t, window, sinks), new Shape(t, t));
        for (int l = 0; l < g.numLayers(); l++) {
            // Each layer's intermediates live in their own manager, freed when the layer ends, so
            // libtorch reuses their memory instead of touching fresh pages layer after layer.
            try (NDManager lm = m.newSubManager()) {
                lanesX.attach(lm);
                lanesX = layer(lm, l, tokens, lanesX, rope, mask, kv, taps);
                lanesX.attach(m);
            }
        }

        NDArray h = zcn(lanesX.sum(new int[] {1}).div(lanes), dense.finalNorm);
        taps.record("final.norm", h, d);
        if (allLogits || taps.wants("logits")) {
            NDArray logits = h.matMul(dense.embeddingT);
            taps.record("logits", logits, g.vocab());
            return allLogits ? logits : logits.get(new NDIndex("{}:", t - 1));
        }
        return h.get(new NDIndex("{}:", t - 1)).matMul(dense.embeddingT);
    }

    private record Rotation(NDArray cos, NDArray sin) {}

    private NDArray layer(NDManager m, int l, int[] tokens, NDArray lanesX, Rotation rope, NDArray mask, KvSink kv,
            BatchTaps taps) {
        DenseWeights.Layer lw = dense.layers[l];
        int t = tokens.length;
        String name = String.format("layer%02d.", l);
        taps.record(name + "lanes_in", lanesX, lanes, d);

        // mHC coefficients from the normalized flattened lanes, the rms division moved past the GEMM
        // onto its [T, 24] result (one pass less over the [T, lanes * d] lanes).
        NDArray flat = lanesX.reshape(t, (long) lanes * d);
        NDList coef = flat.matMul(lw.phiT()).divi(rms(flat)).split(new long[] {lanes, 2L * lanes}, 1);
        NDArray hpre = Activation.sigmoid(coef.get(0).mul(w.aPre[l]).addi(lw.preBias()).addi(lw.preOffset()));
        NDArray hpost = Activation.sigmoid(coef.get(1).mul(w.aPost[l]).addi(lw.postBias()).addi(lw.postOffset())).muli(2f);
        float[] res = coef.get(2).mul(w.aRes[l]).add(lw.resBias()).toFloatArray();
        taps.record(name + "hpre", hpre, lanes);
        NDArray u = hpre.expandDims(1).matMul(lanesX).reshape(t, d);
        taps.record(name + "u", u, d);

        NDArray bx = u;
        int site = siteOfLayer[l];
        if (site >= 0) bx = injectEngram(m, site, tokens, u, name, taps);

        bx = attention(l, bx, rope, mask, kv, name, taps);
        bx = hadamardMlp(m, lw, bx);
        taps.record(name + "block_out", bx, d);

        // mHC update: X = sinkhorn(A) X + hpost * (block(u) - u).
        NDArray sink = sinkhorn(m, res, t);
        taps.record(name + "hpost", hpost, lanes);
        taps.record(name + "sinkhorn", sink, lanes, lanes);
        NDArray out = sink.matMul(lanesX).addi(hpost.expandDims(2).mul(bx.sub(u).expandDims(1)));
        taps.record(name + "lanes_out", out, lanes, d);
        return out;
    }

    /** {@code x + sigmoid(attn_gate) * ZCN(attention(ZCN(x)))}, passing the layer's keys and values to {@code kv}. */
    private NDArray attention(int l, NDArray x, Rotation rope, NDArray mask, KvSink kv, String name, BatchTaps taps) {
        DenseWeights.Layer lw = dense.layers[l];
        long t = x.getShape().get(0);
        NDList p = zcn(x, lw.normIn()).matMul(lw.qkvgT()).split(new long[] {g.qDim() + g.kvDim(), g.qDim() + 2L * g.kvDim()}, 1);
        // Query and key heads side by side [T, heads + kv_heads, head_dim]: one norm, one rotation.
        NDArray qk = rotate(zcn(p.get(0).reshape(t, heads + kvHeads, headDim), lw.qkNorm()), rope);
        NDArray q = qk.get(new NDIndex(":, :{}", heads));
        NDArray k = qk.get(new NDIndex(":, {}:", heads));
        NDArray v = p.get(1).reshape(t, kvHeads, headDim);
        taps.record(name + "attn.q", q, heads, headDim);
        taps.record(name + "attn.k", k, kvHeads, headDim);
        taps.record(name + "attn.v", v, kvHeads, headDim);
        kv.layer(l, k.toFloatArray(), v.toFloatArray());
        // Grouped queries: the `group` query heads of a kv head are stacked along the rows, [kv_heads, group * T, head_dim].
        int group = heads / kvHeads;
        // The 1/sqrt(head_dim) scale goes on the queries, [T, heads, head_dim], a quarter of the scores' size at T = 256.
        NDArray scores = q.mul((float) (1.0 / Math.sqrt(headDim))).transpose(1, 0, 2).reshape(kvHeads, group * t, headDim)
                .matMul(k.transpose(1, 2, 0)).reshape(kvHeads, group, t, t).addi(mask);
        NDArray o = scores.softmax(-1).reshape(kvHeads, group * t, t).matMul(v.transpose(1, 0, 2))
                .reshape(heads, t, headDim).transpose(1, 0, 2).reshape(t, g.qDim())
                .muli(Activation.sigmoid(p.get(2)));
        NDArray attnOut = o.matMul(lw.outT());
        taps.record(name + "attn.out", attnOut, d);
        return x.add(zcn(attnOut, lw.postNorm()).mul(Norms.sigmoid(w.layers[l].attnGate())));
    }

    /**
     * {@code x + crop(d3 * H silu(d2 * H (d1 * pad(ZCN(x)))))}, with {@code H = H_a (x) H_b} applied to
     * {@code [T, a, b]} as {@code H_a X H_b}: the padded input has only its first rows of b live and
     * only the first rows of the output survive the crop, so those products skip the rest.
     */
    private NDArray hadamardMlp(NDManager m, DenseWeights.Layer lw, NDArray x) {
        long t = x.getShape().get(0);
        int rows = dense.hadamardRows;
        long b = dense.hadamardB.getShape().get(0), a = dense.hadamardAIn.getShape().get(0);
        NDArray z = zcn(x, lw.preHada()).muli(lw.d1());
        if (rows * b > d) z = z.concat(m.zeros(new Shape(t, rows * b - d)), 1);
        z = leftMul(m, dense.hadamardAIn, z.reshape(t, rows, b).matMul(dense.hadamardB)).reshape(t, a * b).muli(lw.d2());
        z = leftMul(m, dense.hadamardAOut, Activation.sigmoid(z).muli(z).reshape(t, a, b)).matMul(dense.hadamardB).reshape(t, rows * b);
        if (rows * b > d) z = z.get(new NDIndex(":, :{}", d));
        return x.add(z.muli(lw.d3()));
    }

    /** The mixing matrices {@code [T, lanes, lanes]}: the engine's own {@link Sinkhorn} on each position's logits. */
    private NDArray sinkhorn(NDManager m, float[] logits, int t) {
        float[] mix = new float[logits.length];
        float[] a = new float[lanes * lanes], p = new float[lanes * lanes];
        for (int pos = 0; pos < t; pos++) {
            System.arraycopy(logits, pos * a.length, a, 0, a.length);
            Sinkhorn.apply(a, lanes, p);
            System.arraycopy(p, 0, mix, pos * a.length, a.length);
        }
        return m.create(mix, new Shape(t, lanes, lanes));
    }

    /** {@code u + sigmoid(dot(rms_unit(u), rms_unit(k)) / sqrt(d)) * v} with the site's engram key and conv-mixed value. */
    private NDArray injectEngram(NDManager m, int site, int[] tokens, NDArray u, String name, BatchTaps taps) {
        int t = tokens.length;
        Engram.Weights ew = w.engrams[site];
        DenseWeights.EngramSite es = dense.engrams[site];
        int width = ew.key().cols();
        NDList kv = m.create(engramRows(ew.tables(), tokens), new Shape(t, width)).matMul(es.keyValueT()).split(2, 1);
        NDArray v0 = kv.get(1);
        NDArray v = v0.mul(es.taps()[0]);
        for (int j = 1; j < es.taps().length; j++) {
            int shift = j * g.engramConvDilation();
            if (shift >= t) break;
            NDArray past = m.zeros(new Shape(shift, d)).concat(v0.get(new NDIndex(":{}", t - shift)), 0);
            v = v.add(past.mul(es.taps()[j]));
        }
        NDArray alpha = Activation.sigmoid(rmsUnit(u).mul(rmsUnit(kv.get(0))).sum(new int[] {1}, true).div((float) Math.sqrt(d)));
        taps.record(name + "engram_alpha", alpha, 1);
        return u.add(alpha.mul(v));
    }

    /** The gathered, concatenated table rows of every position ([T, tables * sub_dim]); zero where the n-gram is not whole. */
    private float[] engramRows(PackedCqMatrix tables, int[] tokens) {
        int[] orders = g.engramOrders();
        int perOrder = g.numEngramTables() / orders.length, sub = tables.cols(), width = g.numEngramTables() * sub;
        float[] e = new float[tokens.length * width];
        float[] scratch = new float[tables.decodeScratchLength()];
        for (int pos = 0; pos < tokens.length; pos++) {
            for (int oi = 0; oi < orders.length; oi++) {
                if (pos - (orders[oi] - 1) < 0) continue;
                for (int h = 0; h < perOrder; h++) {
                    int table = oi * perOrder + h;
                    int slot = EngramHash.slot(tokens, pos, orders[oi], table, g.engramSlots());
                    tables.decodeRow(table * g.engramSlots() + slot, e, pos * width + table * sub, scratch);
                }
            }
        }
        return e;
    }

    /** {@code sqrt(d) * E[token]} for every token, the engine's decoded rows. */
    private float[] embeddings(int[] tokens) {
        float[] x = new float[tokens.length * d];
        float[] scratch = new float[w.embedding.decodeScratchLength()];
        float scale = (float) Math.sqrt(d);
        for (int pos = 0; pos < tokens.length; pos++) {
            w.embedding.decodeRow(tokens[pos], x, pos * d, scratch);
            for (int i = pos * d; i < (pos + 1) * d; i++) x[i] *= scale;
        }
        return x;
    }

    /** 0 where the key at column k is visible to the query at row q, -infinity elsewhere (rows always see themselves). */
    static float[] mask(int t, int window, int sinks) {
        float[] mask = new float[t * t];
        for (int q = 0; q < t; q++) {
            for (int k = 0; k < t; k++) {
                boolean visible = k <= q && (window == 0 || q - k < window || k < sinks);
                mask[q * t + k] = visible ? 0f : Float.NEGATIVE_INFINITY;
            }
        }
        return mask;
    }

    /** RoPE tables for positions 0..t-1 as {@code [t, 1, head_dim]}: {@code [cos, cos]} and {@code [-sin, sin]}, angles as {@link dev.needlewb.engine.layer.Rope}. */
    private Rotation rotation(NDManager m, int t) {
        float[] cos = new float[t * headDim], sin = new float[t * headDim];
        for (int p = 0; p < t; p++) {
            for (int i = 0; i < half; i++) {
                double angle = p / Math.pow(g.ropeTheta(), 2.0 * i / headDim);
                cos[p * headDim + i] = cos[p * headDim + half + i] = (float) Math.cos(angle);
                sin[p * headDim + i] = -(sin[p * headDim + half + i] = (float) Math.sin(angle));
            }
        }
        return new Rotation(m.create(cos, new Shape(t, 1, headDim)), m.create(sin, new Shape(t, 1, headDim)));
    }

    /**
     * Rotates halves, {@code [x1 cos - x2 sin, x2 cos + x1 sin]} on {@code [T, heads, head_dim]}, as
     * {@code x [cos, cos] + [x2, x1] [-sin, sin]} (the same products and sums, negation being exact).
     */
    private NDArray rotate(NDArray x, Rotation r) {
        NDArray swapped = x.get(new NDIndex("..., {}:", half)).concat(x.get(new NDIndex("..., :{}", half)), -1);
        return x.mul(r.cos()).addi(swapped.muli(r.sin()));
    }

    /** {@code weight @ x} (broadcast over x's leading axes), attached to {@code m} rather than to the weight's manager. */
    private static NDArray leftMul(NDManager m, NDArray weight, NDArray x) {
        NDArray product = weight.matMul(x);
        product.attach(m);
        return product;
    }

    /** {@code x * (1 + gain) / sqrt(mean(x^2) + 1e-6)} over the last axis; {@code onePlusGain} as stored. */
    private static NDArray zcn(NDArray x, NDArray onePlusGain) {
        return x.mul(onePlusGain).divi(rms(x));
    }

    private static NDArray rmsUnit(NDArray x) {
        return x.div(rms(x));
    }

    private static NDArray rms(NDArray x) {
        return x.square().mean(new int[] {-1}, true).addi(1e-6f).sqrt();
    }
}
