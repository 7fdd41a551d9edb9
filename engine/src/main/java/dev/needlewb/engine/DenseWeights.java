package dev.needlewb.engine;

import dev.needlewb.core.simd.VectorWidth;
import dev.needlewb.engine.kernel.Lanes;
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
    private static final VectorSpecies<Float> F = Lanes.F;
    /** Output columns per packed panel: two vectors. */
    static final int PANEL = 2 * F.length();
    /**
     * Rows per register block of the kernel, two accumulators each: 8 rows (16 accumulators, 19 live
     * vectors) with 32 vector registers; 6 rows (15 live vectors) with 16 (x86 without AVX-512), where 8
     * rows spill to the stack every k step (measured at 256 bits: 740 against 1,020-1,140 prefill
     * tokens/s). Each output is its own FMA chain, so the block size changes no result.
     */
    static final int BLOCK = VectorWidth.registers() >= 32 ? 8 : 6;
    private static final boolean EIGHT_ROWS = BLOCK == 8;

    /** One block's GEMM operands: phi pre|post|res, Q|K|V|gate and out. */
    record Layer(Matrix phi, Matrix qkvg, Matrix out) {}

    private final Arena arena;
    final Layer[] layers;
    /** Per engram site: key|value projections, in = tables * sub_dim, out = 2d. */
    final Matrix[] engramKeyValue;
    /** The tied embedding as the logit projection, in = d, out = vocab. */
    final Matrix logits;

    DenseWeights(ModelWeights w) {
        EngineShape g = w.s;
        arena = Arena.ofShared();
        try {
            layers = new Layer[g.numLayers()];
            for (int l = 0; l < layers.length; l++) {
                LayerWeights lw = w.layers[l];
                layers[l] = new Layer(pack(lw.phiPre(), lw.phiPost(), lw.phiRes()), pack(lw.q(), lw.k(), lw.v(), lw.gate()), pack(lw.out()));
            }
            engramKeyValue = new Matrix[w.engrams.length];
            for (int s = 0; s < engramKeyValue.length; s++) engramKeyValue[s] = pack(w.engrams[s].key(), w.engrams[s].value());
            logits = pack(w.logits);
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
    record Matrix(MemorySegment packed, int in, int out) {
        int panels() {
            return (out + PANEL - 1) / PANEL;
        }

        /** Row stride of the products: {@code out} rounded up to whole panels. */
        int stride() {
            return panels() * PANEL;
        }

        /**
         * {@code y[r, panel columns] = x[r, :] @ this} for rows {@code [fromRow, toRow)} and panels
         * {@code [fromPanel, toPanel)}; {@code x} has row stride {@code in}, {@code y} row stride
         * {@link #stride()}. Every output is one float32 FMA chain over {@code in} in order.
         */
        void multiply(float[] x, int fromRow, int toRow, float[] y, int fromPanel, int toPanel) {
            for (int p = fromPanel; p < toPanel; p++) {
                long base = (long) p * in * PANEL * Float.BYTES;
                int r = fromRow, s = stride();
                for (; r + BLOCK <= toRow; r += BLOCK) block(x, r * in, in, packed, base, in, y, r * s + p * PANEL, s);
                for (; r < toRow; r++) row(x, r * in, packed, base, in, y, r * s + p * PANEL);
            }
        }
    }

    /**
     * The kernel on one panel of a packed {@code [in, PANEL]} block at byte {@code base} of {@code w}:
     * {@code y[y0 + i * ys + j] = sum over k < kEnd of x[x0 + i * xs + k] * w[k][j]} for the
     * {@link #BLOCK} rows {@code i}, {@code j < PANEL}. Each output is one float32 FMA chain in k order.
     */
    static void block(float[] x, int x0, int xs, MemorySegment w, long base, int kEnd, float[] y, int y0, int ys) {
        FloatVector a0 = FloatVector.zero(F), a1 = a0, b0 = a0, b1 = a0, c0 = a0, c1 = a0, d0 = a0, d1 = a0;
        FloatVector e0 = a0, e1 = a0, f0 = a0, f1 = a0, g0 = a0, g1 = a0, h0 = a0, h1 = a0;
        long half = (long) F.length() * Float.BYTES;
        for (int k = 0; k < kEnd; k++) {
            long at = base + (long) k * PANEL * Float.BYTES;
            FloatVector w0 = FloatVector.fromMemorySegment(F, w, at, ByteOrder.nativeOrder());
            FloatVector w1 = FloatVector.fromMemorySegment(F, w, at + half, ByteOrder.nativeOrder());
            FloatVector v = FloatVector.broadcast(F, x[x0 + k]);
            a0 = w0.fma(v, a0);
            a1 = w1.fma(v, a1);
            v = FloatVector.broadcast(F, x[x0 + xs + k]);
            b0 = w0.fma(v, b0);
            b1 = w1.fma(v, b1);
            v = FloatVector.broadcast(F, x[x0 + 2 * xs + k]);
            c0 = w0.fma(v, c0);
            c1 = w1.fma(v, c1);
            v = FloatVector.broadcast(F, x[x0 + 3 * xs + k]);
            d0 = w0.fma(v, d0);
            d1 = w1.fma(v, d1);
            v = FloatVector.broadcast(F, x[x0 + 4 * xs + k]);
            e0 = w0.fma(v, e0);
            e1 = w1.fma(v, e1);
            v = FloatVector.broadcast(F, x[x0 + 5 * xs + k]);
            f0 = w0.fma(v, f0);
            f1 = w1.fma(v, f1);
            if (EIGHT_ROWS) {
                v = FloatVector.broadcast(F, x[x0 + 6 * xs + k]);
                g0 = w0.fma(v, g0);
                g1 = w1.fma(v, g1);
                v = FloatVector.broadcast(F, x[x0 + 7 * xs + k]);
                h0 = w0.fma(v, h0);
                h1 = w1.fma(v, h1);
            }
        }
        int second = F.length();
        a0.intoArray(y, y0);
        a1.intoArray(y, y0 + second);
        b0.intoArray(y, y0 + ys);
        b1.intoArray(y, y0 + ys + second);
        c0.intoArray(y, y0 + 2 * ys);
        c1.intoArray(y, y0 + 2 * ys + second);
        d0.intoArray(y, y0 + 3 * ys);
        d1.intoArray(y, y0 + 3 * ys + second);
        e0.intoArray(y, y0 + 4 * ys);
        e1.intoArray(y, y0 + 4 * ys + second);
        f0.intoArray(y, y0 + 5 * ys);
        f1.intoArray(y, y0 + 5 * ys + second);
        if (EIGHT_ROWS) {
            g0.intoArray(y, y0 + 6 * ys);
            g1.intoArray(y, y0 + 6 * ys + second);
            h0.intoArray(y, y0 + 7 * ys);
            h1.intoArray(y, y0 + 7 * ys + second);
        }
    }

    /** {@link #block} for the one row at {@code x0}. */
    static void row(float[] x, int x0, MemorySegment w, long base, int kEnd, float[] y, int y0) {
        FloatVector a0 = FloatVector.zero(F), a1 = a0;
        long half = (long) F.length() * Float.BYTES;
        for (int k = 0; k < kEnd; k++) {
            long at = base + (long) k * PANEL * Float.BYTES;
            FloatVector v = FloatVector.broadcast(F, x[x0 + k]);
            a0 = FloatVector.fromMemorySegment(F, w, at, ByteOrder.nativeOrder()).fma(v, a0);
            a1 = FloatVector.fromMemorySegment(F, w, at + half, ByteOrder.nativeOrder()).fma(v, a1);
        }
        a0.intoArray(y, y0);
        a1.intoArray(y, y0 + F.length());
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
        return new Matrix(packed, in, out);
    }

    @Override
    public void close() {
        arena.close();
    }
}
