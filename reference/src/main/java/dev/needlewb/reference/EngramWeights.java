package dev.needlewb.reference;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.v2.Geometry;

/** One engram site: tables [tables, slots, sub_dim], key/value projections, conv taps [taps, d]. */
public record EngramWeights(double[] tables, Matrix key, Matrix value, double[] taps) {

    static EngramWeights read(FlaxParams p, Geometry g, int site) throws WorkbenchException {
        return read(p, Engram.Layout.of(g), site);
    }

    /** The parameters under {@code engrams_<site>/}, shaped by {@code layout}. */
    public static EngramWeights read(FlaxParams p, Engram.Layout layout, int site) throws WorkbenchException {
        String prefix = "engrams_" + site + "/";
        int width = layout.width();
        int d = layout.dModel();
        return new EngramWeights(
                p.get(prefix + "embedding", layout.tables(), layout.slots(), layout.subDim()),
                new Matrix(p.get(prefix + "key_proj/kernel", width, d), width, d),
                new Matrix(p.get(prefix + "value_proj/kernel", width, d), width, d),
                p.get(prefix + "taps", layout.convTaps(), d));
    }
}
