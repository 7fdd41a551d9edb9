package dev.needlewb.engine;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.needlewb.converter.model.Geometry;
import dev.needlewb.engine.kernel.PackedCqMatrix;

/**
 * The batch prefill's weights as libtorch tensors: every CQ matrix decoded (row by row, with the
 * engine's own float32 decoder) into a dense float32 matrix, transposed to {@code [in, out]} so a
 * prompt goes through it as {@code x @ W} in one GEMM, matrices that read the same input side by
 * side (Q|K|V|gate, phi pre|post|res, engram key|value). Norms, gates and other per-position work
 * read the engine's own float arrays ({@link TorchForward}).
 *
 * <p>This is the one dense copy of the weights in the workbench, an exception to the engine's
 * packed-only rule: it is built only when a batch prefill is opened, lives in libtorch's native
 * memory owned by {@link #manager} (about 4 bytes per weight: ~140 MB for the released geometry),
 * and is freed by {@link #close}. The native engine never builds it. Engram tables and the
 * prompt's embedding rows are not densified (those rows are decoded on demand); the tied logit
 * projection needs the whole embedding ({@link #embeddingT}).
 */
final class DenseWeights implements AutoCloseable {
    /** One block's GEMM operands: phi pre|post|res, Q|K|V|gate and out, transposed. */
    record Layer(NDArray phiT, NDArray qkvgT, NDArray outT) {}

    /** One engram site: key|value projections [tables * sub_dim, 2d]. */
    record EngramSite(NDArray keyValueT) {}

    final NDManager manager;
    final Layer[] layers;
    final EngramSite[] engrams;
    /** The tied embedding as {@code [d, vocab]}. */
    final NDArray embeddingT;

    DenseWeights(ModelWeights w) {
        Geometry g = w.g;
        manager = NDManager.newBaseManager(ai.djl.Device.cpu(), TorchRuntime.ENGINE);
        try {
            layers = new Layer[g.numLayers()];
            for (int l = 0; l < layers.length; l++) {
                LayerWeights lw = w.layers[l];
                layers[l] = new Layer(transposed(lw.phiPre(), lw.phiPost(), lw.phiRes()), transposed(lw.q(), lw.k(), lw.v(), lw.gate()),
                        transposed(lw.out()));
            }
            engrams = new EngramSite[w.engrams.length];
            for (int s = 0; s < engrams.length; s++) engrams[s] = new EngramSite(transposed(w.engrams[s].key(), w.engrams[s].value()));
            embeddingT = transposed(w.embedding);
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
