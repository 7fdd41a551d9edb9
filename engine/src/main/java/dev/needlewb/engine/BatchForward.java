package dev.needlewb.engine;

import dev.needlewb.core.v2.Geometry;
import dev.needlewb.engine.kernel.Lanes;
import dev.needlewb.engine.layer.Arithmetic;
import dev.needlewb.engine.layer.Engram;
import dev.needlewb.engine.layer.HadamardMlp;
import dev.needlewb.engine.layer.Mhc;
import dev.needlewb.engine.layer.Norms;
import dev.needlewb.engine.layer.Rope;
import dev.needlewb.engine.layer.Rows;
import dev.needlewb.engine.layer.Sinkhorn;
import dev.needlewb.engine.layer.VectorExp;
import dev.needlewb.engine.cache.Visibility;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntUnaryOperator;
import java.util.stream.IntStream;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The full-sequence forward of a prompt from position 0 in float32: the function {@link Session#step}
 * computes in exact mode, for all positions at once (SPEC section 2 with the engine's window and
 * sinks). Every product runs on {@link DenseWeights}' packed vector kernel: the weight matrices, and
 * per head the attention's scores and weighted values on the keys and values packed the same way
 * (causal: a block of queries reads only the key panels up to its last position). Everything between
 * the products (norms, mHC coefficients and mixing, rotation, masked softmax, gates, residuals, the
 * engram's gather and convolution, the Hadamard MLP) runs as one fused pass over the positions per
 * step. Both are split over the engine's threads.
 *
 * <p>The engine's own float32 building blocks do the per-position work: {@link Sinkhorn}, {@link Rope},
 * {@link HadamardMlp}, the CQ row decoder, {@link Norms} with sums on vector lanes, {@link VectorExp}
 * for every exponential, {@link Lanes#sum} for every cross-lane sum. Those fix the order of every
 * operation, so a prompt gives the same bits in every run (the Vector API's own {@code EXP} and
 * {@code reduceLanes(ADD)} may differ between interpreted and compiled code). Keys and values of
 * each layer go to a {@link KvSink} as soon as they exist.
 */
final class BatchForward {
    /**
     * Receives {@code k} and {@code v} of one layer, {@code [positions, kv_dim]} row-major, for the
     * positions {@code [from, to)}: disjoint ranges of one layer arrive from several threads at once.
     */
    interface KvSink {
        void layer(int layer, float[] k, float[] v, int from, int to);
    }

    private static final VectorSpecies<Float> F = Lanes.F;
    /** Every pass here sums on lanes and takes the polynomial exponential (float32 products whatever the engine's mode). */
    private static final Arithmetic ARITHMETIC = Arithmetic.VECTOR;
    private static final Arithmetic.Sums SUMS = ARITHMETIC.sums();
    private static final int PANEL = DenseWeights.PANEL, BLOCK = DenseWeights.BLOCK;
    /** Ranges each worker claims in a {@link #parallel} split, at an even pace. */
    private static final int CLAIMS_PER_THREAD = 4;

    private final ModelWeights w;
    private final DenseWeights dense;
    private final Geometry g;
    private final int threads;
    private final int d, lanes, heads, kvHeads, headDim, group, qDim, kvDim, qkvgDim;
    private final int[] siteOfLayer;
    private final Engram.Tables tables;
    /** Tap name prefixes, {@code layerNN.}. */
    private final String[] layerNames;

    BatchForward(ModelWeights w, DenseWeights dense, int threads) {
        this.w = w;
        this.dense = dense;
        this.g = w.g;
        this.threads = Math.max(1, threads);
        d = g.dModel();
        lanes = g.mhcLanes();
        heads = g.numHeads();
        kvHeads = g.numKvHeads();
        headDim = g.headDim();
        group = heads / kvHeads;
        qDim = g.qDim();
        kvDim = g.kvDim();
        qkvgDim = 2 * qDim + 2 * kvDim;
        siteOfLayer = ModelWeights.siteOfLayer(g);
        tables = ModelWeights.engramTables(g);
        layerNames = ModelWeights.layerNames(g);
    }

    /**
     * Runs {@code tokens} (positions 0..T-1) with the attention pattern of {@code window} and
     * {@code sinks} (window 0 = causal only). Returns the logits {@code [T, vocab]} when
     * {@code allLogits}, else those of the last position {@code [vocab]}, row-major.
     */
    float[] run(int[] tokens, int window, int sinks, boolean allLogits, KvSink kv, BatchTaps taps) {
        // Off-heap like the weights: the kernel then only ever sees native segments (a heap segment
        // there too made its loads bimorphic and the weight products measurably slower).
        try (Arena arena = Arena.ofShared()) {
            return new Pass(arena, tokens, window, sinks, kv, taps).run(allLogits);
        }
    }

    /** One prompt's buffers and steps. */
    private final class Pass {
        private final int[] tokens;
        private final int t;
        private final Visibility visibility;
        private final KvSink kv;
        private final BatchTaps taps;
        private final Rope rope;
        /** The lanes [T, lanes, d], this layer's and the next's. */
        private float[] x, next;
        /** {@code queries}: rotated, scaled by 1/sqrt(head_dim), as [heads, T, head_dim] (the kernel reads each head's rows). */
        private final float[] u, bx, hpre, hpost, mix, queries, k, v, o, normed, alpha;
        private final MemorySegment keySegment, valueSegment;
        /** Panels of positions (keys) and of head dims (values), and the row strides of the scores and head outputs. */
        private final int keyPanelCount, valuePanelCount, keyStride, valueStride;
        /** Per worker of the head split: attention weights [T, keyStride] and one head's output [T, valueStride]. */
        private final float[][] scores, headOuts;

        Pass(Arena arena, int[] tokens, int window, int sinks, KvSink kv, BatchTaps taps) {
            this.tokens = tokens;
            this.t = tokens.length;
            this.visibility = new Visibility(window, sinks);
            this.kv = kv;
            this.taps = taps;
            rope = Rope.ofPositions(headDim, g.ropeTheta(), t);
            x = new float[t * lanes * d];
            next = new float[t * lanes * d];
            u = new float[t * d];
            bx = new float[t * d];
            hpre = new float[t * lanes];
            hpost = new float[t * lanes];
            mix = new float[t * lanes * lanes];
            queries = new float[t * qDim];
            k = new float[t * kvDim];
            v = new float[t * kvDim];
            keyPanelCount = (t + PANEL - 1) / PANEL;
            valuePanelCount = (headDim + PANEL - 1) / PANEL;
            keyStride = keyPanelCount * PANEL;
            valueStride = valuePanelCount * PANEL;
            keySegment = arena.allocate((long) kvHeads * keyPanelCount * headDim * PANEL * Float.BYTES, 64);
            valueSegment = arena.allocate((long) kvHeads * valuePanelCount * t * PANEL * Float.BYTES, 64);
            o = new float[t * qDim];
            scores = new float[threads][t * keyStride];
            headOuts = new float[threads][t * valueStride];
            normed = new float[t * d];
            alpha = new float[t];
        }

        float[] run(boolean allLogits) {
            embed();
            for (int l = 0; l < g.numLayers(); l++) layer(l);
            // h = ZCN(mean of the lanes) for the positions whose logits are wanted.
            boolean every = allLogits || taps.wants("logits") || taps.wants("final.norm");
            int from = every ? 0 : t - 1;
            float[] h = new float[(t - from) * d];
            for (int pos = from; pos < t; pos++) {
                int at = (pos - from) * d;
                Mhc.mean(x, pos * lanes * d, lanes, d, h, at);
                Norms.zcn(SUMS, h, at, d, w.finalNorm, 0, h, at);
            }
            taps.record("final.norm", h, d);
            float[] logits = project(dense.logits, h);
            taps.record("logits", logits, g.vocab());
            if (allLogits || from == t - 1) return logits;
            return Arrays.copyOfRange(logits, (t - 1) * g.vocab(), t * g.vocab());
        }

        /** {@code sqrt(d) * E[token]} in every lane. */
        private void embed() {
            float[] row = new float[d];
            float[] scratch = new float[w.embedding.decodeScratchLength()];
            float scale = (float) Math.sqrt(d);
            float[] embedded = taps.wants("embed") ? new float[t * d] : null;
            for (int pos = 0; pos < t; pos++) {
                w.embedding.decodeRow(tokens[pos], row, 0, scratch);
                for (int i = 0; i < d; i++) row[i] *= scale;
                for (int lane = 0; lane < lanes; lane++) System.arraycopy(row, 0, x, (pos * lanes + lane) * d, d);
                if (embedded != null) System.arraycopy(row, 0, embedded, pos * d, d);
            }
            if (embedded != null) taps.record("embed", embedded, d);
        }

        private void layer(int l) {
            LayerWeights lw = w.layers[l];
            DenseWeights.Layer dw = dense.layers[l];
            String name = layerNames[l];
            taps.record(name + "lanes_in", x, lanes, d);

            // mHC coefficients: the rms division moved past the GEMM onto its [T, 24] result.
            int nc = 2 * lanes + lanes * lanes;
            float[] coef = project(dw.phi(), x);
            parallel(t, (from, to, worker) -> {
                float[] logits = new float[lanes * lanes];
                for (int pos = from; pos < to; pos++) {
                    float inv = Norms.inverseRms(SUMS, x, pos * lanes * d, lanes * d);
                    int c = pos * nc;
                    Mhc.coefficients(w.mhc, l, coef, c, coef, c + lanes, coef, c + 2 * lanes, inv, hpre, pos * lanes, hpost,
                            pos * lanes, logits, 0);
                    Sinkhorn.apply(logits, lanes, mix, pos * lanes * lanes);
                    Mhc.combine(x, pos * lanes * d, lanes, d, hpre, pos * lanes, u, pos * d);
                }
            });
            taps.record(name + "hpre", hpre, lanes);
            taps.record(name + "u", u, d);

            System.arraycopy(u, 0, bx, 0, t * d);
            int site = siteOfLayer[l];
            if (site >= 0) injectEngram(site, name);

            attention(l, lw, dw, name);
            hadamardMlp(lw);
            taps.record(name + "block_out", bx, d);

            // mHC update: X = sinkhorn(A) X + hpost * (block(u) - u).
            taps.record(name + "hpost", hpost, lanes);
            taps.record(name + "sinkhorn", mix, lanes, lanes);
            parallel(t, (from, to, worker) -> {
                for (int pos = from; pos < to; pos++) {
                    int at = pos * lanes * d;
                    Mhc.update(x, at, lanes, d, mix, pos * lanes * lanes, hpost, pos * lanes, bx, u, pos * d, next, at);
                }
            });
            float[] swap = x;
            x = next;
            next = swap;
            taps.record(name + "lanes_out", x, lanes, d);
        }

        /** {@code bx = x + sigmoid(attn_gate) * ZCN(attention(ZCN(x)))}, passing the layer's keys and values to the sink. */
        private void attention(int l, LayerWeights lw, DenseWeights.Layer dw, String name) {
            parallel(t, (from, to, worker) -> {
                for (int pos = from; pos < to; pos++) Norms.zcn(SUMS, bx, pos * d, d, lw.normIn(), 0, normed, pos * d);
            });
            float[] qkvg = project(dw.qkvg(), normed);

            // Per position: head norms and rotation; queries scaled by 1/sqrt(head_dim) into
            // [heads, T, head_dim], each head's rows contiguous for the kernel.
            float scale = (float) (1.0 / Math.sqrt(headDim));
            float[] q = taps.wants(name + "attn.q") ? new float[t * qDim] : null;
            parallel(t, (from, to, worker) -> {
                float[] row = new float[qDim + kvDim];
                for (int pos = from; pos < to; pos++) {
                    int at = pos * qkvgDim;
                    for (int h = 0; h < heads + kvHeads; h++) {
                        Norms.zcn(SUMS, qkvg, at + h * headDim, headDim, h < heads ? lw.qNorm() : lw.kNorm(), 0, row,
                                h * headDim);
                    }
                    rope.apply(row, 0, heads, pos);
                    rope.apply(row, qDim, kvHeads, pos);
                    if (q != null) System.arraycopy(row, 0, q, pos * qDim, qDim);
                    System.arraycopy(row, qDim, k, pos * kvDim, kvDim);
                    System.arraycopy(qkvg, at + qDim + kvDim, v, pos * kvDim, kvDim);
                    for (int h = 0; h < heads; h++) {
                        int dst = ((h * t) + pos) * headDim;
                        for (int i = 0; i < headDim; i++) queries[dst + i] = row[h * headDim + i] * scale;
                    }
                }
            });
            if (q != null) taps.record(name + "attn.q", q, heads, headDim);
            taps.record(name + "attn.k", k, kvHeads, headDim);
            taps.record(name + "attn.v", v, kvHeads, headDim);
            parallel(t, (from, to, worker) -> kv.layer(l, k, v, from, to));
            parallel(kvHeads, (from, to, worker) -> packKeysValues(from, to));
            parallel(heads, (from, to, worker) -> {
                for (int h = from; h < to; h++) attendHead(h, qkvg, scores[worker], headOuts[worker]);
            });
            float[] attnOut = project(dw.out(), o);
            taps.record(name + "attn.out", attnOut, d);
            float attnGate = Norms.sigmoid(lw.attnGate());
            parallel(t, (from, to, worker) -> {
                for (int pos = from; pos < to; pos++) {
                    Norms.zcn(SUMS, attnOut, pos * d, d, lw.postNorm(), 0, attnOut, pos * d);
                    Rows.addScaled(bx, pos * d, attnGate, attnOut, pos * d, d);
                }
            });
        }

        /** Keys and values of kv heads {@code [from, to)} in the kernel's packed layout (padding stays zero). */
        private void packKeysValues(int from, int to) {
            for (int kh = from; kh < to; kh++) {
                for (int pos = 0; pos < t; pos++) {
                    for (int i = 0; i < headDim; i++) {
                        int src = pos * kvDim + kh * headDim + i;
                        keySegment.setAtIndex(ValueLayout.JAVA_FLOAT, ((kh * keyPanelCount + pos / PANEL) * headDim + i) * PANEL + pos % PANEL, k[src]);
                        valueSegment.setAtIndex(ValueLayout.JAVA_FLOAT, ((kh * valuePanelCount + i / PANEL) * t + pos) * PANEL + i % PANEL, v[src]);
                    }
                }
            }
        }

        /**
         * Query head {@code h} over all positions: scores {@code q K^T} on the key panels each block of
         * queries can see (causal), the masked softmax, its product with the values (keys past a
         * block's last query have weight 0 and are skipped), gated by sigmoid(gate) into {@code o}.
         */
        private void attendHead(int h, float[] qkvg, float[] weights, float[] headOut) {
            int kh = h / group, q0 = h * t * headDim;
            long keyPanelBytes = (long) headDim * PANEL * Float.BYTES, valuePanelBytes = (long) t * PANEL * Float.BYTES;
            long keyBase = kh * keyPanelCount * keyPanelBytes, valueBase = kh * valuePanelCount * valuePanelBytes;
            int r = 0;
            for (; r + BLOCK <= t; r += BLOCK) {
                for (int p = 0; p <= (r + BLOCK - 1) / PANEL; p++) {
                    DenseWeights.block(queries, q0 + r * headDim, headDim, keySegment, keyBase + p * keyPanelBytes, headDim,
                            weights, r * keyStride + p * PANEL, keyStride);
                }
            }
            for (; r < t; r++) {
                for (int p = 0; p <= r / PANEL; p++) {
                    DenseWeights.row(queries, q0 + r * headDim, keySegment, keyBase + p * keyPanelBytes, headDim, weights, r * keyStride + p * PANEL);
                }
            }
            for (r = 0; r < t; r++) softmaxRow(weights, r * keyStride, r);
            for (r = 0; r + BLOCK <= t; r += BLOCK) {
                for (int p = 0; p < valuePanelCount; p++) {
                    DenseWeights.block(weights, r * keyStride, keyStride, valueSegment, valueBase + p * valuePanelBytes, r + BLOCK,
                            headOut, r * valueStride + p * PANEL, valueStride);
                }
            }
            for (; r < t; r++) {
                for (int p = 0; p < valuePanelCount; p++) {
                    DenseWeights.row(weights, r * keyStride, valueSegment, valueBase + p * valuePanelBytes, r + 1, headOut, r * valueStride + p * PANEL);
                }
            }
            for (int pos = 0; pos < t; pos++) {
                Rows.gate(headOut, pos * valueStride, qkvg, pos * qkvgDim + qDim + 2 * kvDim + h * headDim, ARITHMETIC.exp(), o,
                        pos * qDim + h * headDim, headDim);
            }
        }

        /** Softmax of the scores {@code s[base, base + t)} of query position {@code qpos} over the keys it sees; 0 for the rest. */
        private void softmaxRow(float[] s, int base, int qpos) {
            int lo = visibility.windowStart(qpos);
            int sinkEnd = visibility.sinkEnd(qpos);
            float max = Math.max(max(s, base, sinkEnd), max(s, base + lo, qpos + 1 - lo));
            float sum = expShifted(s, base, sinkEnd, max) + expShifted(s, base + lo, qpos + 1 - lo, max);
            float inv = 1f / sum;
            Arrays.fill(s, base + sinkEnd, base + lo, 0f);
            Arrays.fill(s, base + qpos + 1, base + t, 0f);
            scale(s, base, sinkEnd, inv);
            scale(s, base + lo, qpos + 1 - lo, inv);
        }

        /** {@code bx = u + gate(u, k) * conv(v)} with the site's engram key and value at every position. */
        private void injectEngram(int site, String name) {
            Engram.Weights ew = w.engrams[site];
            float[] rows = new float[t * tables.count() * ew.tables().cols()];
            int width = tables.count() * ew.tables().cols();
            IntUnaryOperator tokenAt = p -> p >= 0 ? tokens[p] : 0;
            parallel(t, (from, to, worker) -> {
                float[] scratch = new float[ew.tables().decodeScratchLength()];
                for (int pos = from; pos < to; pos++) Engram.gather(ew.tables(), tables, tokenAt, pos, rows, pos * width, scratch);
            });
            float[] keyValue = project(dense.engramKeyValue[site], rows);
            IntUnaryOperator valueRow = p -> p * 2 * d + d;
            parallel(t, (from, to, worker) -> {
                float[] conv = new float[d];
                for (int pos = from; pos < to; pos++) {
                    Engram.conv(ew.taps(), g.engramConvTaps(), g.engramConvDilation(), d, keyValue, valueRow, pos, conv, 0);
                    alpha[pos] = Engram.gate(u, pos * d, keyValue, pos * 2 * d, d, SUMS);
                    System.arraycopy(u, pos * d, bx, pos * d, d);
                    Rows.addScaled(bx, pos * d, alpha[pos], conv, 0, d);
                }
            });
            taps.record(name + "engram_alpha", alpha, 1);
        }

        /**
         * {@code bx += crop(d3 * H silu(d2 * H (d1 * pad(ZCN(bx)))))} per position, H the orthonormal
         * Walsh-Hadamard transform of length hada_n: the native engine's {@link HadamardMlp} (FWHT, vector SiLU).
         */
        private void hadamardMlp(LayerWeights lw) {
            int n = g.hadaN();
            float[] d1 = lw.d1(), d2 = lw.d2(), d3 = lw.d3();
            parallel(t, (from, to, worker) -> {
                HadamardMlp mlp = new HadamardMlp(d, n, ARITHMETIC.exp());
                float[] normedRow = new float[d], out = new float[d];
                for (int pos = from; pos < to; pos++) {
                    Norms.zcn(SUMS, bx, pos * d, d, lw.preHada(), 0, normedRow, 0);
                    mlp.apply(normedRow, d1, d2, d3, out);
                    Rows.add(bx, pos * d, out, 0, d);
                }
            });
        }
    }

    /**
     * {@code x @ weight} for the rows of {@code x} ({@code [rows, weight.in()]}), {@code [rows, weight.out()]}:
     * panels split over the threads, or row blocks when there are too few panels to {@link #splits} (the mHC
     * coefficients' 24 columns are two panels at 256 bits, which ran on one thread).
     */
    private float[] project(DenseWeights.Matrix weight, float[] x) {
        int rows = x.length / weight.in(), panels = weight.panels();
        float[] y = new float[rows * weight.stride()];
        if (splits(panels)) {
            parallel(panels, (from, to, worker) -> weight.multiply(x, 0, rows, y, from, to));
        } else {
            int blocks = (rows + BLOCK - 1) / BLOCK;
            parallel(blocks, (from, to, worker) -> weight.multiply(x, from * BLOCK, Math.min(rows, to * BLOCK), y, 0, panels));
        }
        if (weight.stride() == weight.out()) return y;
        float[] compact = new float[rows * weight.out()];
        for (int r = 0; r < rows; r++) System.arraycopy(y, r * weight.stride(), compact, r * weight.out(), weight.out());
        return compact;
    }

    /**
     * Runs {@code body} over [0, n) on the workers (numbered from 0), which claim contiguous ranges of
     * about a {@link #CLAIMS_PER_THREAD}th of their share until none is left: a worker that starts late or
     * shares its core with another process takes fewer, instead of the others waiting for its half.
     */
    private void parallel(int n, RangeBody body) {
        if (!splits(n)) {
            body.run(0, n, 0);
            return;
        }
        int range = Math.max(1, n / (CLAIMS_PER_THREAD * threads));
        AtomicInteger next = new AtomicInteger();
        IntStream.range(0, threads).parallel().forEach(worker -> {
            for (int from; (from = next.getAndAdd(range)) < n; ) body.run(from, Math.min(n, from + range), worker);
        });
    }

    /** Whether {@link #parallel} spreads {@code n} items over the threads: two at least per thread. */
    private boolean splits(int n) {
        return threads > 1 && n >= 2 * threads;
    }

    @FunctionalInterface
    private interface RangeBody {
        void run(int from, int to, int worker);
    }

    /** The largest of {@code a[off, off + n)} (-infinity for none); a maximum is the same in any order. */
    private static float max(float[] a, int off, int n) {
        int i = 0;
        float max = Float.NEGATIVE_INFINITY;
        int bound = Lanes.loopBound(n);
        if (bound > 0) {
            FloatVector m = FloatVector.fromArray(F, a, off);
            for (i = F.length(); i < bound; i += F.length()) m = m.max(FloatVector.fromArray(F, a, off + i));
            max = m.reduceLanes(VectorOperators.MAX);
        }
        for (; i < n; i++) max = Math.max(max, a[off + i]);
        return max;
    }

    /** {@code a[off, off + n) = exp(a - max)}; returns their sum. */
    private static float expShifted(float[] a, int off, int n, float max) {
        int bound = Lanes.loopBound(n);
        VectorExp.expShifted(a, off, bound, max);
        float total = Lanes.sumPadded(a, off, bound);
        for (int i = bound; i < n; i++) {
            float e = (float) Math.exp(a[off + i] - max);
            a[off + i] = e;
            total += e;
        }
        return total;
    }

    private static void scale(float[] a, int off, int n, float factor) {
        int i = 0;
        for (int bound = Lanes.loopBound(n); i < bound; i += F.length()) {
            FloatVector.fromArray(F, a, off + i).mul(factor).intoArray(a, off + i);
        }
        for (; i < n; i++) a[off + i] *= factor;
    }
}
