package dev.needlewb.engine;

import dev.needlewb.converter.model.Geometry;
import dev.needlewb.engine.kernel.PackedCqMatrix;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The batch prefill's weights, dense float32: every CQ matrix decoded (row by row, with the engine's
 * own float32 decoder) and packed for {@link Matrix#multiply}, matrices that read the same input side
 * by side (Q|K|V|gate, phi pre|post|res, engram key|value), so a prompt goes through each in one GEMM.
 *
 * <p>This is the one dense copy of the weights in the workbench, an exception to the engine's
 * packed-only rule: it is built only when a batch prefill is opened, lives off-heap in {@link #arena}
 * (about 4 bytes per weight: ~140 MB for the released geometry), and is freed by {@link #close}. The
 * native engine never builds it. Engram tables and the prompt's embedding rows are not densified
 * (those rows are decoded on demand); the tied logit projection needs the whole embedding.
 */
final class DenseWeights implements AutoCloseable {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED;
    /** Output columns per packed panel: two vectors. */
    static final int PANEL = 2 * F.length();
    /** Rows per register block of the kernel (with two vectors each: 16 accumulators). */
    private static final int BLOCK = 8;

    /** One block's GEMM operands: phi pre|post|res, Q|K|V|gate and out. */
    record Layer(Matrix phi, Matrix qkvg, Matrix out) {}

    private final Arena arena;
    final Layer[] layers;
    /** Per engram site: key|value projections, in = tables * sub_dim, out = 2d. */
    final Matrix[] engramKeyValue;
    /** The tied embedding as the logit projection, in = d, out = vocab. */
    final Matrix logits;

    DenseWeights(ModelWeights w) {
        Geometry g = w.g;
        arena = Arena.ofShared();
        try {
            layers = new Layer[g.numLayers()];
            for (int l = 0; l < layers.length; l++) {
                LayerWeights lw = w.layers[l];
                layers[l] = new Layer(pack(lw.phiPre(), lw.phiPost(), lw.phiRes()), pack(lw.q(), lw.k(), lw.v(), lw.gate()), pack(lw.out()));
            }
            engramKeyValue = new Matrix[w.engrams.length];
            for (int s = 0; s < engramKeyValue.length; s++) engramKeyValue[s] = pack(w.engrams[s].key(), w.engrams[s].value());
            logits = pack(w.embedding);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /**
     * A dense {@code [in, out]} matrix (the CQ matrices' rows are its columns) packed as panels of
     * {@link #PANEL} output columns, {@code [panels][in][PANEL]}, zero-padded past {@code out}: the
     * kernel streams one panel while eight input rows stay in L1.
     */
    record Matrix(MemorySegment packed, int in, int out, int panels) {
        /** Row stride of the products: {@code out} rounded up to whole panels. */
        int stride() {
            return panels * PANEL;
        }

        /**
         * {@code y[r, panel columns] = x[r, :] @ this} for rows {@code [0, rows)} and panels
         * {@code [fromPanel, toPanel)}; {@code x} has row stride {@code in}, {@code y} row stride
         * {@link #stride()}. Every output is one float32 FMA chain over {@code in} in order.
         */
        void multiply(float[] x, int rows, float[] y, int fromPanel, int toPanel) {
            for (int p = fromPanel; p < toPanel; p++) {
                long base = (long) p * in * PANEL * Float.BYTES;
                int r = 0;
                for (; r + BLOCK <= rows; r += BLOCK) block(x, r, y, p, base);
                for (; r < rows; r++) row(x, r, y, p, base);
            }
        }

        private void block(float[] x, int r, float[] y, int p, long base) {
            FloatVector a0 = FloatVector.zero(F), a1 = a0, b0 = a0, b1 = a0, c0 = a0, c1 = a0, d0 = a0, d1 = a0;
            FloatVector e0 = a0, e1 = a0, f0 = a0, f1 = a0, g0 = a0, g1 = a0, h0 = a0, h1 = a0;
            int n = in, x0 = r * n;
            long half = (long) F.length() * Float.BYTES;
            for (int k = 0; k < n; k++) {
                long at = base + (long) k * PANEL * Float.BYTES;
                FloatVector w0 = FloatVector.fromMemorySegment(F, packed, at, ByteOrder.nativeOrder());
                FloatVector w1 = FloatVector.fromMemorySegment(F, packed, at + half, ByteOrder.nativeOrder());
                FloatVector v = FloatVector.broadcast(F, x[x0 + k]);
                a0 = w0.fma(v, a0);
                a1 = w1.fma(v, a1);
                v = FloatVector.broadcast(F, x[x0 + n + k]);
                b0 = w0.fma(v, b0);
                b1 = w1.fma(v, b1);
                v = FloatVector.broadcast(F, x[x0 + 2 * n + k]);
                c0 = w0.fma(v, c0);
                c1 = w1.fma(v, c1);
                v = FloatVector.broadcast(F, x[x0 + 3 * n + k]);
                d0 = w0.fma(v, d0);
                d1 = w1.fma(v, d1);
                v = FloatVector.broadcast(F, x[x0 + 4 * n + k]);
                e0 = w0.fma(v, e0);
                e1 = w1.fma(v, e1);
                v = FloatVector.broadcast(F, x[x0 + 5 * n + k]);
                f0 = w0.fma(v, f0);
                f1 = w1.fma(v, f1);
                v = FloatVector.broadcast(F, x[x0 + 6 * n + k]);
                g0 = w0.fma(v, g0);
                g1 = w1.fma(v, g1);
                v = FloatVector.broadcast(F, x[x0 + 7 * n + k]);
                h0 = w0.fma(v, h0);
                h1 = w1.fma(v, h1);
            }
            int s = stride(), at = r * s + p * PANEL, second = F.length();
            a0.intoArray(y, at);
            a1.intoArray(y, at + second);
            b0.intoArray(y, at + s);
            b1.intoArray(y, at + s + second);
            c0.intoArray(y, at + 2 * s);
            c1.intoArray(y, at + 2 * s + second);
            d0.intoArray(y, at + 3 * s);
            d1.intoArray(y, at + 3 * s + second);
            e0.intoArray(y, at + 4 * s);
            e1.intoArray(y, at + 4 * s + second);
            f0.intoArray(y, at + 5 * s);
            f1.intoArray(y, at + 5 * s + second);
            g0.intoArray(y, at + 6 * s);
            g1.intoArray(y, at + 6 * s + second);
            h0.intoArray(y, at + 7 * s);
            h1.intoArray(y, at + 7 * s + second);
        }

        private void row(float[] x, int r, float[] y, int p, long base) {
            FloatVector a0 = FloatVector.zero(F), a1 = a0;
            long half = (long) F.length() * Float.BYTES;
            for (int k = 0; k < in; k++) {
                long at = base + (long) k * PANEL * Float.BYTES;
                FloatVector v = FloatVector.broadcast(F, x[r * in + k]);
                a0 = FloatVector.fromMemorySegment(F, packed, at, ByteOrder.nativeOrder()).fma(v, a0);
                a1 = FloatVector.fromMemorySegment(F, packed, at + half, ByteOrder.nativeOrder()).fma(v, a1);
            }
            int at = r * stride() + p * PANEL;
            a0.intoArray(y, at);
            a1.intoArray(y, at + F.length());
        }
    }

    /** The matrices (same cols = in) decoded and packed side by side: their rows are the output columns. */
    private Matrix pack(PackedCqMatrix... matrices) {
        int in = matrices[0].cols(), out = 0;
        for (PackedCqMatrix m : matrices) out += m.rows();
        int panels = (out + PANEL - 1) / PANEL;
        MemorySegment packed = arena.allocate(Math.multiplyExact(Math.multiplyExact((long) panels * PANEL, in), (long) Float.BYTES), 64);
        float[] row = new float[in];
        int column = 0;
        for (PackedCqMatrix m : matrices) {
            float[] scratch = new float[m.decodeScratchLength()];
            for (int r = 0; r < m.rows(); r++, column++) {
                m.decodeRow(r, row, 0, scratch);
                long at = (long) (column / PANEL) * in * PANEL + column % PANEL;
                for (int k = 0; k < in; k++) packed.setAtIndex(ValueLayout.JAVA_FLOAT, at + (long) k * PANEL, row[k]);
            }
        }
        return new Matrix(packed, in, out, panels);
    }

    @Override
    public void close() {
        arena.close();
    }
}
