package dev.needlewb.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.needlewb.converter.model.Geometry;
import dev.needlewb.engine.kernel.PackedCqMatrix;
import java.util.Arrays;

/**
 * The batch prefill's weights as libtorch tensors: every CQ matrix decoded (row by row, with the
 * engine's own float32 decoder) into a dense float32 matrix, transposed to {@code [in, out]} so a
 * prompt goes through it as {@code x @ W} in one GEMM, matrices that read the same input side by
 * side (Q|K|V|gate, phi pre|post|res, engram key|value). Norm gains are stored as {@code 1 + gain},
 * as the engine's norms multiply.
 *
 * <p>This is the one dense copy of the weights in the workbench, an exception to the engine's
 * packed-only rule: it is built only when a batch prefill is opened, lives in libtorch's native
 * memory owned by {@link #manager} (about 4 bytes per weight: ~140 MB for the released geometry),
 * and is freed by {@link #close}. The native engine never builds it. Engram tables and the
 * prompt's embedding rows are not densified (those rows are decoded on demand); the tied logit
 * projection needs the whole embedding ({@link #embeddingT}).
 */
final class DenseWeights implements AutoCloseable {
    /**
     * One block. {@code qkNorm}: the query then key head norms stacked; {@code preBias} / {@code postBias} / {@code resBias}: the layer's b slices;
     * {@code preOffset} / {@code postOffset}: the selected-lane offsets; {@code d1}, {@code d3} cut to d_model.
     */
    record Layer(NDArray phiT, NDArray qkvgT, NDArray outT, NDArray normIn, NDArray qkNorm, NDArray postNorm,
            NDArray preHada, NDArray d1, NDArray d2, NDArray d3, NDArray preBias, NDArray preOffset, NDArray postBias,
            NDArray postOffset, NDArray resBias) {}

    /** One engram site: key|value projections [tables * sub_dim, 2d] and the conv taps, one [d] vector each. */
    record EngramSite(NDArray keyValueT, NDArray[] taps) {}

    final NDManager manager;
    final Layer[] layers;
    final EngramSite[] engrams;
    final NDArray finalNorm;
    /** The tied embedding as {@code [d, vocab]}. */
    final NDArray embeddingT;
    /**
     * The orthonormal Hadamard of length hada_n as {@code H_a (x) H_b} with {@code a * b = hada_n}, each
     * normalized: {@code hadamardB} whole, and of {@code H_a} only what touches the first
     * {@link #hadamardRows} rows of b (those holding the d_model live entries): its first columns
     * {@code [a, rows]} (input side, the rest multiply padding zeros) and first rows {@code [rows, a]}
     * (output side, the rest are cropped).
     */
    final NDArray hadamardAIn, hadamardAOut, hadamardB;
    final int hadamardRows;

    DenseWeights(ModelWeights w) {
        Geometry g = w.g;
        int d = g.dModel(), lanes = g.mhcLanes(), n = g.hadaN();
        manager = NDManager.newBaseManager(ai.djl.Device.cpu(), TorchRuntime.ENGINE);
        try {
            layers = new Layer[g.numLayers()];
            for (int l = 0; l < layers.length; l++) {
                LayerWeights lw = w.layers[l];
                float[] preOffset = new float[lanes], postOffset = new float[lanes];
                for (int i = 0; i < lanes; i++) {
                    boolean selected = i == l % lanes;
                    preOffset[i] = selected ? 4f : -4f;
                    postOffset[i] = selected ? 0f : -4f;
                }
                layers[l] = new Layer(
                        transposed(lw.phiPre(), lw.phiPost(), lw.phiRes()),
                        transposed(lw.q(), lw.k(), lw.v(), lw.gate()),
                        transposed(lw.out()),
                        onePlus(lw.normIn()), headNorms(lw.qNorm(), g.numHeads(), lw.kNorm(), g.numKvHeads()), onePlus(lw.postNorm()),
                        onePlus(lw.preHada()),
                        vector(Arrays.copyOf(lw.d1(), d)), vector(lw.d2()), vector(Arrays.copyOf(lw.d3(), d)),
                        vector(Arrays.copyOfRange(w.bPre, l * lanes, (l + 1) * lanes)), vector(preOffset),
                        vector(Arrays.copyOfRange(w.bPost, l * lanes, (l + 1) * lanes)), vector(postOffset),
                        vector(Arrays.copyOfRange(w.bRes, l * lanes * lanes, (l + 1) * lanes * lanes)));
            }
            engrams = new EngramSite[w.engrams.length];
            for (int s = 0; s < engrams.length; s++) {
                float[] taps = w.engrams[s].taps();
                NDArray[] tapRows = new NDArray[g.engramConvTaps()];
                for (int j = 0; j < tapRows.length; j++) tapRows[j] = vector(Arrays.copyOfRange(taps, j * d, (j + 1) * d));
                engrams[s] = new EngramSite(transposed(w.engrams[s].key(), w.engrams[s].value()), tapRows);
            }
            finalNorm = onePlus(w.finalNorm);
            embeddingT = transposed(w.embedding);
            int bitsA = Integer.numberOfTrailingZeros(n) / 2;
            int a = 1 << bitsA, b = n >> bitsA;
            hadamardRows = (d + b - 1) / b;
            float[] ha = hadamardValues(a);
            float[] in = new float[a * hadamardRows], out = new float[hadamardRows * a];
            for (int i = 0; i < a; i++) {
                for (int j = 0; j < hadamardRows; j++) in[i * hadamardRows + j] = out[j * a + i] = ha[i * a + j];
            }
            hadamardAIn = owned(in, new Shape(a, hadamardRows));
            hadamardAOut = owned(out, new Shape(hadamardRows, a));
            hadamardB = owned(hadamardValues(b), new Shape(b, b));
        } catch (RuntimeException e) {
            manager.close();
            throw e;
        }
    }

    /** {@code [cols, sum of rows]}: the matrices (same cols) decoded, side by side, transposed. */
    private NDArray transposed(PackedCqMatrix... matrices) {
        int cols = matrices[0].cols(), total = 0;
        for (PackedCqMatrix m : matrices) total += m.rows();
        float[] out = new float[Math.multiplyExact(cols, total)];
        float[] row = new float[cols];
        int at = 0;
        for (PackedCqMatrix m : matrices) {
            float[] scratch = new float[m.decodeScratchLength()];
            for (int r = 0; r < m.rows(); r++, at++) {
                m.decodeRow(r, row, 0, scratch);
                for (int c = 0; c < cols; c++) out[c * total + at] = row[c];
            }
        }
        return owned(out, new Shape(cols, total));
    }

    /** {@code [heads + kvHeads, head_dim]}: {@code 1 + q_norm} for every query head, then {@code 1 + k_norm} for every key head. */
    private NDArray headNorms(float[] qNorm, int heads, float[] kNorm, int kvHeads) {
        int n = qNorm.length;
        float[] v = new float[(heads + kvHeads) * n];
        for (int h = 0; h < heads + kvHeads; h++) {
            float[] gain = h < heads ? qNorm : kNorm;
            for (int i = 0; i < n; i++) v[h * n + i] = 1f + gain[i];
        }
        return owned(v, new Shape(heads + kvHeads, n));
    }

    private NDArray onePlus(float[] gain) {
        float[] v = new float[gain.length];
        for (int i = 0; i < v.length; i++) v[i] = 1f + gain[i];
        return vector(v);
    }

    private NDArray vector(float[] v) {
        return owned(v, new Shape(v.length));
    }

    /** Sylvester {@code H[i][j] = (-1)^popcount(i & j) / sqrt(n)}: symmetric, so {@code x @ H} is the transform. */
    private static float[] hadamardValues(int n) {
        float[] h = new float[n * n];
        float scale = (float) (1.0 / Math.sqrt(n));
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) h[i * n + j] = (Integer.bitCount(i & j) & 1) == 0 ? scale : -scale;
        }
        return h;
    }

    /**
     * A tensor in libtorch's own memory: DJL creates tensors over a JVM direct buffer it keeps
     * alive (counted against the JVM's direct-memory limit), so the values are cloned by libtorch and
     * the direct-buffer tensor released.
     */
    private NDArray owned(float[] values, Shape shape) {
        try (NDArray wrapped = manager.create(values, shape)) {
            return wrapped.duplicate();
        }
    }

    @Override
    public void close() {
        manager.close();
    }
}
