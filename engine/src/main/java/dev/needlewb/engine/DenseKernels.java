package dev.needlewb.engine;

import dev.needlewb.engine.cache.LayerCaches;
import dev.needlewb.engine.kernel.RowPool;
import dev.needlewb.engine.layer.Arithmetic;
import dev.needlewb.engine.layer.Engram;
import dev.needlewb.engine.layer.Norms;
import java.lang.foreign.Arena;
import java.util.function.IntUnaryOperator;

/**
 * The many-position case of the {@link Forward}, a batch prefill: a prompt's positions from 0, every
 * product a float32 GEMM on {@link DenseWeights} (panels split over the pool's threads, or blocks of rows
 * when a matrix has too few panels), attention over the prompt's own keys and values
 * ({@link DenseAttention}), each engram site's table rows gathered for every position and projected at
 * once. The mHC norm's 1/rms moves past its GEMM onto the {@code [T, 2 lanes + lanes^2]} result.
 */
final class DenseKernels implements Kernels {
    private static final Arithmetic.Sums SUMS = Arithmetic.VECTOR.sums();
    private static final int BLOCK = DenseWeights.BLOCK;

    private final ModelWeights w;
    private final DenseWeights dense;
    private final RowPool pool;
    private final int[] tokens;
    private final DenseAttention attention;
    private final Engram.Tables tables;
    private final int d, lanes;

    /** The kernels of the prompt {@code tokens} (positions from 0) into {@code caches}; scratch off-heap in {@code arena}. */
    DenseKernels(ModelWeights w, DenseWeights dense, RowPool pool, int[] tokens, LayerCaches caches, Arena arena) {
        EngineShape g = w.s;
        this.w = w;
        this.dense = dense;
        this.pool = pool;
        this.tokens = tokens;
        this.attention = new DenseAttention(g, pool, caches, tokens.length, arena);
        this.tables = g.engramTables();
        d = g.dModel();
        lanes = g.mhcLanes();
    }

    @Override
    public void mhc(int layer, Activations a) {
        project(dense.layers[layer].phi(), a.x, a.rows, a.coef);
        pool.ranges(a.rows, (from, to, thread) -> {
            for (int r = from; r < to; r++) a.inv[r] = Norms.inverseRms(SUMS, a.x, r * lanes * d, lanes * d);
        });
    }

    @Override
    public void qkvg(int layer, Activations a) {
        project(dense.layers[layer].qkvg(), a.normed, a.rows, a.qkvg);
    }

    @Override
    public void attend(int layer, Activations a) {
        attention.attend(layer, a.qkvg, a.attended);
    }

    @Override
    public void out(int layer, Activations a) {
        project(dense.layers[layer].out(), a.attended, a.rows, a.attnOut);
    }

    @Override
    public void engram(int site, Activations a) {
        Engram.Weights ew = w.engrams[site];
        EngineShape g = w.s;
        int width = tables.count() * ew.tables().cols();
        float[] rows = new float[a.rows * width];
        IntUnaryOperator tokenAt = p -> p >= 0 ? tokens[p] : 0;
        pool.ranges(a.rows, (from, to, thread) -> {
            float[] scratch = new float[ew.tables().decodeScratchLength()];
            for (int pos = from; pos < to; pos++) Engram.gather(ew.tables(), tables, tokenAt, pos, rows, pos * width, scratch);
        });
        float[] keyValue = new float[a.rows * 2 * d];
        project(dense.engramKeyValue[site], rows, a.rows, keyValue);
        IntUnaryOperator valueRow = p -> p * 2 * d + d;
        pool.ranges(a.rows, (from, to, thread) -> {
            for (int pos = from; pos < to; pos++) {
                System.arraycopy(keyValue, pos * 2 * d, a.engramKey, pos * d, d);
                Engram.conv(ew.taps(), g.engramConvTaps(), g.engramConvDilation(), d, keyValue, valueRow, pos, a.engramValue, pos * d);
            }
        });
    }

    @Override
    public void logits(Activations a, int count) {
        project(dense.logits, a.finalNorm, count, a.logits);
    }

    /**
     * {@code y = x @ weight} for {@code rows} rows of {@code x} ({@code [rows, weight.in()]} into
     * {@code [rows, weight.out()]}): panels split over the threads, or row blocks when there are too few
     * panels to spread (the mHC coefficients' 24 columns are two panels at 256 bits, which ran on one thread).
     */
    private void project(DenseWeights.Matrix weight, float[] x, int rows, float[] y) {
        int panels = weight.panels();
        float[] padded = weight.stride() == weight.out() ? y : new float[rows * weight.stride()];
        if (pool.spreads(panels)) {
            pool.ranges(panels, (from, to, thread) -> weight.multiply(x, 0, rows, padded, from, to));
        } else {
            int blocks = (rows + BLOCK - 1) / BLOCK;
            pool.ranges(blocks, (from, to, thread) -> weight.multiply(x, from * BLOCK, Math.min(rows, to * BLOCK), padded, 0, panels));
        }
        if (padded == y) return;
        for (int r = 0; r < rows; r++) System.arraycopy(padded, r * weight.stride(), y, r * weight.out(), weight.out());
    }
}
