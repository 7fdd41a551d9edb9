package dev.needlewb.torch;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import ai.djl.ndarray.types.Shape;
import dev.needlewb.core.model.EngramHash;
import dev.needlewb.engine.TapSink;
import dev.needlewb.engine.torch.TorchModel;
import java.util.HashMap;
import java.util.Map;

/**
 * The full-sequence forward with quant=False in float32 on libtorch, operation by operation as the float64
 * reference computes it (Needle 2: SPEC section 3, reference {@code Trunk}, {@code LaneMixing}, {@code Block},
 * {@code Attention}, {@code Engram}; Needle 3: notes v3/forward.md, reference {@code V3Model}): all positions
 * at once, every product a libtorch GEMM. Where the generations differ, {@link TorchShape} says how: the QKV
 * conv, each layer's window, the qk and v head widths, the headwise gate, the MLP ({@link TorchMlp}), the
 * out_vocab logit rows, the engram seed stride. Integer work (the engram n-gram hashes, the masks) and the
 * RoPE angles are computed in Java and handed over as tensors. Each forward runs under a child manager that
 * frees its intermediates.
 */
final class TorchForward implements TorchModel {
    private static final int SINKHORN_ITERATIONS = 20;
    private static final float EPS = 1e-6f;

    private final NDManager manager;
    private final TorchShape g;
    private final TorchWeights w;

    TorchForward(NDManager manager, TorchShape g, TorchWeights w) {
        this.manager = manager;
        this.g = g;
        this.w = w;
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
        private final float[][] keys, values, convHistory;
        /** The additive attention mask [T, T] of each distinct layer window. */
        private final Map<Integer, NDArray> masks = new HashMap<>();

        Run(NDManager m, int[] tokens, int window, int sinks, TapSink taps) {
            this.m = m;
            this.tokens = tokens;
            this.t = tokens.length;
            this.d = g.d();
            this.n = g.lanes();
            this.window = window;
            this.sinks = sinks;
            this.taps = taps;
            keys = new float[g.layers()][];
            values = new float[g.layers()][];
            convHistory = g.convTaps() == 0 ? null : new float[g.layers()][];
        }

        /** Causal, and within the window or a sink (reference {@code Mask.sequence} without padding or segments): the model-level mask. */
        private boolean visible(int query, int key) {
            return key <= query && (window <= 0 || query - key < window || key < sinks);
        }

        /** The model-level mask and the layer's own sliding window ({@code layerWindow} 0: none). */
        private boolean visible(int query, int key, int layerWindow) {
            return visible(query, key) && (layerWindow == 0 || query - key < layerWindow);
        }

        Result run() {
            NDArray x0 = w.embedding.get(m.create(toLongs(tokens))).mul((float) Math.sqrt(d));
            tap("embed", x0);
            int[] sites = g.engram().sites();
            NDArray[][] engram = new NDArray[sites.length][];
            for (int s = 0; s < sites.length; s++) engram[s] = engram(w.engrams[s]);

            NDArray lanes = x0.expandDims(1).repeat(1, n);
            NDArray[] rope = rope();
            for (int l = 0; l < g.layers(); l++) {
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
                NDArray block = block(blockIn, lw, l, rope, name);
                tap(name + "block_out", block);
                tap(name + "hpost", hpost);
                tap(name + "sinkhorn", residual);
                lanes = residual.matMul(lanes).add(hpost.expandDims(2).mul(block.sub(u).expandDims(1)));
                tap(name + "lanes_out", lanes);
            }
            NDArray h = zcn(lanes.mean(new int[] {1}), w.finalNorm);
            tap("final.norm", h);
            NDArray logits = h.matMul(w.logitRows.transpose());
            tap("logits", logits);
            float[] last = logits.get(new NDIndex(t - 1)).toFloatArray();
            return new Result(last, keys, values, convHistory);
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
            TorchShape.Engram e = g.engram();
            int tables = e.tables();
            long[] rows = new long[t * tables];
            float[] present = new float[t * tables];
            for (int p = 0; p < t; p++) {
                for (int table = 0; table < tables; table++) {
                    int orderIndex = table / e.heads();
                    int order = e.orders()[orderIndex];
                    int first = p - order + 1;
                    if (first < 0 || !visible(p, first)) continue;
                    int seed = orderIndex * e.seedStride() + table % e.heads();
                    rows[p * tables + table] = (long) table * e.slots() + EngramHash.slot(tokens, p, order, seed, e.slots());
                    present[p * tables + table] = 1;
                }
            }
            NDArray values = site.tables().get(m.create(rows)).mul(m.create(present, new Shape(t * tables, 1))).reshape(t, e.width());
            NDArray key = values.matMul(site.key());
            NDArray raw = values.matMul(site.value());
            NDArray value = m.zeros(new Shape(t, d));
            for (int j = 0; j < e.convTaps(); j++) {
                int shift = j * e.dilation();
                if (shift >= t) break;
                value = value.add(shifted(raw, shift, 0).mul(site.taps().get(new NDIndex(j))));
            }
            return new NDArray[] {key, value};
        }

        /**
         * {@code x} [T, c] moved {@code shift} rows down, row p zeroed where position p may not see p - shift (its
         * layer window {@code layerWindow}, 0: none); rows before the shift are 0.
         */
        private NDArray shifted(NDArray x, int shift, int layerWindow) {
            float[] reach = new float[t];
            for (int p = shift; p < t; p++) reach[p] = visible(p, p - shift, layerWindow) ? 1 : 0;
            NDArray moved = shift == 0 ? x : m.zeros(new Shape(shift, x.getShape().get(1))).concat(x.get(new NDIndex(":{}", t - shift)), 0);
            return moved.mul(m.create(reach, new Shape(t, 1)));
        }

        /** The Block output [T, d] (reference {@code Block.forward}, {@code V3Block}). */
        private NDArray block(NDArray x, TorchWeights.Layer lw, int layer, NDArray[] rope, String name) {
            NDArray a = zcn(attention(zcn(x, lw.normIn()), lw, layer, rope, name), lw.postNorm());
            NDArray out = x.add(a.mul((float) (1 / (1 + Math.exp(-lw.attnGate())))));
            NDArray mlpIn = zcn(out, lw.preHadaNorm());
            tap(name + "mlp.in", mlpIn);
            NDArray mlp = lw.mlp().apply(mlpIn, m);
            tap(name + "mlp.out", mlp);
            return out.add(mlp);
        }

        /**
         * Grouped-query attention over the whole sequence under the layer's mask (reference {@code Attention.forward},
         * {@code V3Attention}, float KV): the raw q|k|v rows through the QKV conv when the model has one (tap 0 always,
         * tap j where the layer's mask lets p see p - j), then the head norms and RoPE on q and k.
         */
        private NDArray attention(NDArray h, TorchWeights.Layer lw, int layer, NDArray[] rope, String name) {
            int heads = g.heads(), kvHeads = g.kvHeads(), qk = g.qkDim(), vd = g.vDim();
            long kAt = g.qWidth(), vAt = kAt + g.kWidth();
            int layerWindow = g.windows()[layer];
            NDArray qkv = h.matMul(lw.qkv());
            if (lw.taps() != null) {
                int rows = Math.min(t, g.convTaps() - 1);
                convHistory[layer] = qkv.get(new NDIndex("{}:", t - rows)).toFloatArray();
                NDArray conv = qkv.mul(lw.taps().get(new NDIndex(0)));
                for (int j = 1; j < g.convTaps() && j < t; j++) conv = conv.add(shifted(qkv, j, layerWindow).mul(lw.taps().get(new NDIndex(j))));
                qkv = conv;
                tap(name + "attn.q_conv", qkv.get(new NDIndex(":, :{}", kAt)));
                tap(name + "attn.k_conv", qkv.get(new NDIndex(":, {}:{}", kAt, vAt)));
                tap(name + "attn.v_conv", qkv.get(new NDIndex(":, {}:", vAt)));
            }
            NDArray q = rotate(zcn(qkv.get(new NDIndex(":, :{}", kAt)).reshape(t, heads, qk), lw.qNorm()), rope);
            NDArray k = rotate(zcn(qkv.get(new NDIndex(":, {}:{}", kAt, vAt)).reshape(t, kvHeads, qk), lw.kNorm()), rope);
            NDArray v = qkv.get(new NDIndex(":, {}:", vAt)).reshape(t, kvHeads, vd);
            tap(name + "attn.q", q);
            tap(name + "attn.k", k);
            tap(name + "attn.v", v);
            keys[layer] = k.toFloatArray();
            values[layer] = v.toFloatArray();
            int group = heads / kvHeads;
            NDArray kh = k.transpose(1, 0, 2).repeat(0, group);
            NDArray vh = v.transpose(1, 0, 2).repeat(0, group);
            NDArray scores = q.transpose(1, 0, 2).matMul(kh.transpose(0, 2, 1)).div((float) Math.sqrt(qk)).add(mask(layerWindow));
            NDArray o = scores.softmax(2).matMul(vh).transpose(1, 0, 2);
            NDArray gate = h.matMul(lw.gate()).getNDArrayInternal().sigmoid();
            o = lw.headwiseGate() ? o.mul(gate.expandDims(2)).reshape(t, g.attnWidth()) : o.reshape(t, g.attnWidth()).mul(gate);
            NDArray out = o.matMul(lw.out());
            tap(name + "attn.out", out);
            return out;
        }

        /** 0 where a key is visible under the layer window, -inf elsewhere [T, T]; the diagonal is always visible, so no row is empty. */
        private NDArray mask(int layerWindow) {
            return masks.computeIfAbsent(layerWindow, lw -> {
                float[] mask = new float[t * t];
                for (int q = 0; q < t; q++)
                    for (int k = 0; k < t; k++) mask[q * t + k] = visible(q, k, lw) ? 0 : Float.NEGATIVE_INFINITY;
                return m.create(mask, new Shape(t, t));
            });
        }

        /** The RoPE cosines and sines [T, 1, qk_head_dim/2], angles in double as the reference takes them. */
        private NDArray[] rope() {
            int half = g.qkDim() / 2;
            float[] cos = new float[t * half];
            float[] sin = new float[t * half];
            for (int p = 0; p < t; p++) {
                for (int i = 0; i < half; i++) {
                    double angle = p / Math.pow(g.ropeTheta(), (double) (2 * i) / g.qkDim());
                    cos[p * half + i] = (float) Math.cos(angle);
                    sin[p * half + i] = (float) Math.sin(angle);
                }
            }
            return new NDArray[] {m.create(cos, new Shape(t, 1, half)), m.create(sin, new Shape(t, 1, half))};
        }

        /** Half-split rotation of every head of {@code x} [T, heads, head_dim]. */
        private NDArray rotate(NDArray x, NDArray[] rope) {
            int half = g.qkDim() / 2;
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
