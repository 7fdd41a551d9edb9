package dev.needlewb.reference;

import dev.needlewb.core.model.EngramHash;
import dev.needlewb.core.v2.Geometry;

/**
 * The key and value an engram site injects at positions [pos, pos + count): hashed table rows
 * (zeroed unless the whole n-gram is visible), optional A8 rounding, key/value projections, and the
 * dilated per-channel causal conv over the values (a tap counts only if its position is visible).
 */
final class Engram {
    record KeyValue(double[] key, double[] value) {}

    private Engram() {}

    static KeyValue compute(EngramWeights w, Geometry g, int site, int[] tokens, int pos, int count, Mask mask,
                            RunSettings s) {
        int d = g.dModel();
        int sub = g.engramSubDim();
        int tables = g.numEngramTables();
        int heads = g.engramHeads();
        int[] orders = g.engramOrders();
        int dilation = g.engramConvDilation();
        int taps = g.engramConvTaps();
        int width = tables * sub;
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
                int slot = EngramHash.slot(tokens, p, order, t, g.engramSlots());
                System.arraycopy(w.tables(), (t * g.engramSlots() + slot) * sub, e, r * width + t * sub, sub);
            }
        }
        if (s.quant()) ActQuant.apply(e, rows, width, "engram" + site + ".e", lo, s.watch());

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
}
