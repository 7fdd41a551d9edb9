package dev.needlewb.torch;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import dev.needlewb.core.model.EngramHash;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.engine.TapSink;
import dev.needlewb.engine.torch.TorchModel;

/**
 * The full-sequence forward of SPEC section 3 with quant=False in float32 on libtorch, operation by
 * operation as the float64 reference computes it (reference {@code Trunk}, {@code LaneMixing},
 * {@code Block}, {@code Attention}, {@code Engram}): all positions at once, every product a libtorch
 * GEMM. Integer work (the engram n-gram hashes, the masks) and the RoPE angles are computed in Java
 * and handed over as tensors. Each forward runs under a child manager that frees its intermediates.
 */
final class TorchForward implements TorchModel {
    private static final int SINKHORN_ITERATIONS = 20;
    private static final float EPS = 1e-6f;

    private final NDManager manager;
    private final Geometry g;
    private final TorchWeights w;
    private final NDArray hadamard;

    TorchForward(NDManager manager, Geometry g, TorchWeights w) {
        this.manager = manager;
        this.g = g;
        this.w = w;
        this.hadamard = hadamardMatrix(manager, w.hadamardLength);
    }

    @Override
    public synchronized Result forward(int[] tokens, int window, int sinks, TapSink taps) {
        checkTokens(tokens);
        try (NDManager m = manager.newSubManager()) {
            return new Run(m, tokens, window, sinks, taps).run();
        }
    }

    @Override
    public void close() {
        manager.close();
    }

    private void checkTokens(int[] tokens) {
        if (tokens.length == 0) throw new IllegalArgumentException("no tokens");
        for (int i = 0; i < tokens.length; i++) {
            if (tokens[i] < 0 || tokens[i] >= g.vocab()) {
                throw new IllegalArgumentException("token " + tokens[i] + " at position " + i + " outside vocab " + g.vocab());
            }
        }
    }

    /** One forward: the sequence, its mask and the tap sink. */
    private final class Run {
        private final NDManager m;
        private final int[] tokens;
        private final int t, d, n;
        private final int window, sinks;
        private final TapSink taps;
        private final float[][] keys, values;

        Run(NDManager m, int[] tokens, int window, int sinks, TapSink taps) {
            this.m = m;
            this.tokens = tokens;
            this.t = tokens.length;
            this.d = g.dModel();
            this.n = g.mhcLanes();
            this.window = window;
            this.sinks = sinks;
            this.taps = taps;
            keys = new float[g.numLayers()][];
            values = new float[g.numLayers()][];
        }

        /** Causal, and within the window or a sink (reference {@code Mask.sequence} without padding or segments). */
        private boolean visible(int query, int key) {
            return key <= query && (window <= 0 || query - key < window || key < sinks);
        }

        Result run() {
            NDArray x0 = w.embedding.get(m.create(toLongs(tokens))).mul((float) Math.sqrt(d));
            tap("embed", x0);
            int[] sites = g.engramSites();
            NDArray[][] engram = new NDArray[sites.length][];
            for (int s = 0; s < sites.length; s++) engram[s] = engram(w.engrams[s]);

            NDArray lanes = x0.expandDims(1).repeat(1, n);
            NDArray additiveMask = attentionMask();
            NDArray[] rope = rope();
            for (int l = 0; l < g.numLayers(); l++) {
                String name = (l < 10 ? "layer0" : "layer") + l + ".";
                TorchWeights.Layer lw = w.layers[l];
                tap(name + "lanes_in", lanes);
                NDArray[] mix = laneMixing(lanes, l % n, lw);
                NDArray hpre = mix[0], hpost = mix[1], residual = mix[2];
                tap(name + "hpre", hpre);
                NDArray u = hpre.expandDims(2).mul(lanes).sum(new int[] {1});
                tap(name + "u", u);
                NDArray blockIn = u;
                int site = indexOf(sites, l);
                if (site >= 0) blockIn = inject(u, engram[site], name);
                NDArray block = block(blockIn, lw, l, rope, additiveMask, name);
                tap(name + "block_out", block);
                tap(name + "hpost", hpost);
                tap(name + "sinkhorn", residual);
                lanes = residual.matMul(lanes).add(hpost.expandDims(2).mul(block.sub(u).expandDims(1)));
                tap(name + "lanes_out", lanes);
            }
            NDArray h = zcn(lanes.mean(new int[] {1}), w.finalNorm);
            tap("final.norm", h);
            NDArray logits = h.matMul(w.embedding.transpose());
            tap("logits", logits);
            float[] last = logits.get(new NDIndex(t - 1)).toFloatArray();
            return new Result(last, keys, values);
        }

        /** hpre [T, n], hpost [T, n], the Sinkhorn-projected residual mixing [T, n, n] (reference {@code LaneMixing}). */
        private NDArray[] laneMixing(NDArray lanes, int selected, TorchWeights.Layer lw) {
            NDArray proj = rmsUnit(lanes.reshape(t, (long) n * d)).matMul(lw.phi());
            float[] preOffset = new float[n];
            float[] postOffset = new float[n];
            for (int a = 0; a < n; a++) {
                preOffset[a] = a == selected ? 4 : -4;
                postOffset[a] = a == selected ? 0 : -4;
            }
            NDArray hpre = proj.get(new NDIndex(":, :{}", n)).mul(lw.aPre()).add(lw.bPre()).add(m.create(preOffset)).getNDArrayInternal()
                    .sigmoid();
            NDArray hpost = proj.get(new NDIndex(":, {}:{}", n, 2 * n)).mul(lw.aPost()).add(lw.bPost()).add(m.create(postOffset))
                    .getNDArrayInternal().sigmoid().mul(2f);
            NDArray logits = proj.get(new NDIndex(":, {}:", 2 * n)).mul(lw.aRes()).reshape(t, n, n).add(lw.bRes());
            for (int it = 0; it < SINKHORN_ITERATIONS; it++) logits = logits.logSoftmax(2).logSoftmax(1);
            return new NDArray[] {hpre, hpost, logits.exp()};
        }

        /** {@code u + sigmoid(rms_unit(u) . rms_unit(k) / sqrt(d)) * v}. */
        private NDArray inject(NDArray u, NDArray[] keyValue, String name) {
            NDArray alpha = rmsUnit(u).mul(rmsUnit(keyValue[0])).sum(new int[] {1}).div((float) Math.sqrt(d))
                    .getNDArrayInternal().sigmoid();
            tap(name + "engram_alpha", alpha);
            return u.add(alpha.expandDims(1).mul(keyValue[1]));
        }

        /** The key and the conv-filtered value [T, d] of one engram site (reference {@code Engram.compute}). */
        private NDArray[] engram(TorchWeights.EngramSite site) {
            int tables = g.numEngramTables();
            int heads = g.engramHeads();
            int[] orders = g.engramOrders();
            long[] rows = new long[t * tables];
            float[] present = new float[t * tables];
            for (int p = 0; p < t; p++) {
                for (int table = 0; table < tables; table++) {
                    int order = orders[table / heads];
                    int first = p - order + 1;
                    if (first < 0 || !visible(p, first)) continue;
                    rows[p * tables + table] = (long) table * g.engramSlots() + EngramHash.slot(tokens, p, order, table, g.engramSlots());
                    present[p * tables + table] = 1;
                }
            }
            NDArray e = site.tables().get(m.create(rows)).mul(m.create(present, new Shape(t * tables, 1)))
                    .reshape(t, (long) tables * g.engramSubDim());
            NDArray key = e.matMul(site.key());
            NDArray raw = e.matMul(site.value());
            NDArray value = m.zeros(new Shape(t, d));
            int dilation = g.engramConvDilation();
            for (int j = 0; j < g.engramConvTaps(); j++) {
                int shift = j * dilation;
                if (shift >= t) break;
                float[] reach = new float[t];
                for (int p = shift; p < t; p++) reach[p] = visible(p, p - shift) ? 1 : 0;
                NDArray shifted = shift == 0 ? raw
                        : m.zeros(new Shape(shift, d)).concat(raw.get(new NDIndex(":{}", t - shift)), 0);
                value = value.add(shifted.mul(m.create(reach, new Shape(t, 1))).mul(site.taps().get(new NDIndex(j))));
            }
            return new NDArray[] {key, value};
        }

        /** The Block output [T, d] (reference {@code Block.forward}). */
        private NDArray block(NDArray x, TorchWeights.Layer lw, int layer, NDArray[] rope, NDArray mask, String name) {
            NDArray a = zcn(attention(zcn(x, lw.normIn()), lw, layer, rope, mask, name), lw.postNorm());
            NDArray out = x.add(a.mul((float) (1 / (1 + Math.exp(-lw.attnGate())))));
            int hn = w.hadamardLength;
            NDArray z = zcn(out, lw.preHadaNorm());
            if (hn > d) z = z.concat(m.zeros(new Shape(t, hn - d)), 1);
            z = z.mul(lw.d1()).matMul(hadamard);
            NDArray s = z.mul(lw.d2());
            z = s.mul(s.getNDArrayInternal().sigmoid()).matMul(hadamard);
            return out.add(z.get(new NDIndex(":, :{}", d)).mul(lw.d3()));
        }

        /** Grouped-query attention over the whole sequence (reference {@code Attention.forward}, float KV). */
        private NDArray attention(NDArray h, TorchWeights.Layer lw, int layer, NDArray[] rope, NDArray mask, String name) {
            int heads = g.numHeads();
            int kvHeads = g.numKvHeads();
            int hd = g.headDim();
            NDArray q = rotate(zcn(h.matMul(lw.q()).reshape(t, heads, hd), lw.qNorm()), rope);
            NDArray k = rotate(zcn(h.matMul(lw.k()).reshape(t, kvHeads, hd), lw.kNorm()), rope);
            NDArray v = h.matMul(lw.v()).reshape(t, kvHeads, hd);
            tap(name + "attn.q", q);
            tap(name + "attn.k", k);
            tap(name + "attn.v", v);
            keys[layer] = k.toFloatArray();
            values[layer] = v.toFloatArray();
            int group = heads / kvHeads;
            NDArray kh = k.transpose(1, 0, 2).repeat(0, group);
            NDArray vh = v.transpose(1, 0, 2).repeat(0, group);
            NDArray scores = q.transpose(1, 0, 2).matMul(kh.transpose(0, 2, 1)).div((float) Math.sqrt(hd)).add(mask);
            NDArray o = scores.softmax(2).matMul(vh).transpose(1, 0, 2).reshape(t, (long) heads * hd);
            o = o.mul(h.matMul(lw.gate()).getNDArrayInternal().sigmoid());
            NDArray out = o.matMul(lw.out());
            tap(name + "attn.out", out);
            return out;
        }

        /** 0 where a key is visible, -inf elsewhere [T, T]; the diagonal is always visible, so no row is empty. */
        private NDArray attentionMask() {
            float[] mask = new float[t * t];
            for (int q = 0; q < t; q++)
                for (int k = 0; k < t; k++) mask[q * t + k] = visible(q, k) ? 0 : Float.NEGATIVE_INFINITY;
            return m.create(mask, new Shape(t, t));
        }

        /** The RoPE cosines and sines [T, 1, head_dim/2], angles in double as the reference takes them. */
        private NDArray[] rope() {
            int half = g.headDim() / 2;
            float[] cos = new float[t * half];
            float[] sin = new float[t * half];
            for (int p = 0; p < t; p++) {
                for (int i = 0; i < half; i++) {
                    double angle = p / Math.pow(g.ropeTheta(), (double) (2 * i) / g.headDim());
                    cos[p * half + i] = (float) Math.cos(angle);
                    sin[p * half + i] = (float) Math.sin(angle);
                }
            }
            return new NDArray[] {m.create(cos, new Shape(t, 1, half)), m.create(sin, new Shape(t, 1, half))};
        }

        /** Half-split rotation of every head of {@code x} [T, heads, head_dim]. */
        private NDArray rotate(NDArray x, NDArray[] rope) {
            int half = g.headDim() / 2;
            NDArray x1 = x.get(new NDIndex(":, :, :{}", half));
            NDArray x2 = x.get(new NDIndex(":, :, {}:", half));
            return x1.mul(rope[0]).sub(x2.mul(rope[1])).concat(x2.mul(rope[0]).add(x1.mul(rope[1])), 2);
        }

        /** Records {@code value}'s rows (axis 0 is the position) under {@code name}, if wanted. */
        private void tap(String name, NDArray value) {
            if (taps == null || !taps.wants(name)) return;
            float[] all = value.toFloatArray();
            long[] full = value.getShape().getShape();
            int[] shape = new int[full.length - 1];
            for (int i = 1; i < full.length; i++) shape[i - 1] = (int) full[i];
            int row = all.length / t;
            for (int p = 0; p < t; p++) taps.record(name, p, java.util.Arrays.copyOfRange(all, p * row, (p + 1) * row), shape);
        }
    }

    /** {@code x * rsqrt(mean(x^2) + eps)} over the last axis. */
    private static NDArray rmsUnit(NDArray x) {
        return x.div(x.square().mean(new int[] {-1}, true).add(EPS).sqrt());
    }

    /** Zero-centred RMS norm over the last axis: {@code (1 + gain) * x / sqrt(mean(x^2) + eps)}. */
    private static NDArray zcn(NDArray x, NDArray gain) {
        return rmsUnit(x).mul(gain.add(1f));
    }

    /** The Sylvester Walsh-Hadamard matrix of order {@code n} times {@code 1/sqrt(n)}. */
    private static NDArray hadamardMatrix(NDManager m, int n) {
        float[] h = new float[n * n];
        float scale = (float) (1 / Math.sqrt(n));
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) h[i * n + j] = Integer.bitCount(i & j) % 2 == 0 ? scale : -scale;
        return m.create(h, new Shape(n, n));
    }

    private static long[] toLongs(int[] values) {
        long[] out = new long[values.length];
        for (int i = 0; i < values.length; i++) out[i] = values[i];
        return out;
    }

    private static int indexOf(int[] values, int v) {
        for (int i = 0; i < values.length; i++) if (values[i] == v) return i;
        return -1;
    }
}
