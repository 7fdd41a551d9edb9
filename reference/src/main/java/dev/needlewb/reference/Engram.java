package dev.needlewb.reference;

import dev.needlewb.core.model.EngramHash;
import dev.needlewb.core.v2.Geometry;

/**
 * The key and value an engram site injects at positions [pos, pos + count): hashed table rows
 * (zeroed unless the whole n-gram is visible), optional A8 rounding, key/value projections, and the
 * dilated per-channel causal conv over the values (a tap counts only if its position is visible).
 */
public final class Engram {
    record KeyValue(double[] key, double[] value) {}

    /**
     * The engram geometry: {@code tables = orders x headsPerOrder} tables of {@code slots} rows of
     * {@code subDim}, table {@code t} hashing n-grams of order {@code orders[t / headsPerOrder]} with
     * seed index {@code orderIndex * seedStride + head} (Needle 2: seedStride = headsPerOrder, so the
     * seed index is t; Needle 3 may set it apart with {@code engram_seed_heads}); a conv of
     * {@code convTaps} taps {@code dilation} positions apart over the values.
     */
    public record Layout(int dModel, int subDim, int tables, int headsPerOrder, int[] orders, int dilation,
                         int convTaps, int slots, int seedStride) {
        public Layout {
            orders = orders.clone();
        }

        static Layout of(Geometry g) {
            return new Layout(g.dModel(), g.engramSubDim(), g.numEngramTables(), g.engramHeads(), g.engramOrders(),
                    g.engramConvDilation(), g.engramConvTaps(), g.engramSlots(), g.engramHeads());
        }

        /** The width of one gathered row: every table's sub-row side by side. */
        public int width() {
            return tables * subDim;
        }
    }

    private Engram() {}

    /**
     * @param site  the site index, naming the quantizer site {@code engram<site>.e}
     * @param mask  gates the n-grams ({@code visible(p, p - order + 1)}) and the conv taps
     * @param quant A8-round the gathered rows (upstream quant=True)
     * @param watch collects near ties (may be null)
     */
    static KeyValue compute(EngramWeights w, Layout g, int site, int[] tokens, int pos, int count, Mask mask,
                                   boolean quant, QuantWatch watch) {
        int d = g.dModel();
        int sub = g.subDim();
        int tables = g.tables();
        int heads = g.headsPerOrder();
        int[] orders = g.orders;
        int dilation = g.dilation();
        int taps = g.convTaps();
        int width = g.width();
        // the conv reaches back (taps - 1) * dilation positions: compute those rows too
        int lo = Math.max(0, pos - (taps - 1) * dilation);
        int rows = pos + count - lo;

        double[] e = new double[rows * width];
        for (int r = 0; r < rows; r++) {
            int p = lo + r;
            for (int t = 0; t < tables; t++) {
                int order = orders[t / heads];
                int first = p - order + 1;
                if (first < 0 || !mask.visible(p, first)) continue;
                int seed = t / heads * g.seedStride() + t % heads;
                int slot = EngramHash.slot(tokens, p, order, seed, g.slots());
                System.arraycopy(w.tables(), (t * g.slots() + slot) * sub, e, r * width + t * sub, sub);
            }
        }
        if (quant) ActQuant.apply(e, rows, width, "engram" + site + ".e", lo, watch);

        double[] rawValue = w.value().apply(e, rows);
        double[] own = java.util.Arrays.copyOfRange(e, (pos - lo) * width, rows * width);
        double[] key = w.key().apply(own, count);
        double[] value = new double[count * d];
        for (int i = 0; i < count; i++) {
            int p = pos + i;
            for (int j = 0; j < taps; j++) {
                int src = p - j * dilation;
                if (src < 0 || !mask.visible(p, src)) continue;
                for (int c = 0; c < d; c++) value[i * d + c] += w.taps()[j * d + c] * rawValue[(src - lo) * d + c];
            }
        }
        return new KeyValue(key, value);
    }

    /**
     * The injection gate of row {@code row}: {@code sigmoid(rms_unit(u) . rms_unit(key) / sqrt(d))};
     * {@code ru} and {@code rk} are scratch rows of length d.
     */
    static double gate(double[] u, double[] key, int row, int d, double[] ru, double[] rk) {
        Norms.rmsUnit(u, row * d, d, ru, 0);
        Norms.rmsUnit(key, row * d, d, rk, 0);
        double dot = 0;
        for (int c = 0; c < d; c++) dot += ru[c] * rk[c];
        return Norms.sigmoid(dot / Math.sqrt(d));
    }
}
