package dev.needlewb.reference;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.v2.Geometry;

/** One engram site: tables [tables, slots, sub_dim], key/value projections, conv taps [taps, d]. */
record EngramWeights(double[] tables, Matrix key, Matrix value, double[] taps) {

    static EngramWeights read(FlaxParams p, Geometry g, int site) throws WorkbenchException {
        String prefix = "engrams_" + site + "/";
        int width = g.numEngramTables() * g.engramSubDim();
        return new EngramWeights(
                p.get(prefix + "embedding", g.numEngramTables(), g.engramSlots(), g.engramSubDim()),
                new Matrix(p.get(prefix + "key_proj/kernel", width, g.dModel()), width, g.dModel()),
                new Matrix(p.get(prefix + "value_proj/kernel", width, g.dModel()), width, g.dModel()),
                p.get(prefix + "taps", g.engramConvTaps(), g.dModel()));
    }
}
