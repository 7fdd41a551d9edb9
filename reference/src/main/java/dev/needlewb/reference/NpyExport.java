package dev.needlewb.reference;

import dev.needlewb.core.io.NpyArray;

/** The reference's Java arrays as float64 npy arrays, for writing .npz files with {@code Npz.write}. */
public final class NpyExport {
    private NpyExport() {}

    public static NpyArray scalar(double value) {
        return NpyArray.ofDoubles(new int[0], new double[] {value});
    }

    public static NpyArray vector(double[] values) {
        return NpyArray.ofDoubles(new int[] {values.length}, values.clone());
    }

    /** A [rows][cols] array (e.g. logits [T][vocab]); rows must be equally long. */
    public static NpyArray matrix(double[][] rows) {
        int cols = rows.length == 0 ? 0 : rows[0].length;
        double[] flat = new double[rows.length * cols];
        for (int r = 0; r < rows.length; r++) {
            if (rows[r].length != cols) throw new IllegalArgumentException("row " + r + " has " + rows[r].length + " values, not " + cols);
            System.arraycopy(rows[r], 0, flat, r * cols, cols);
        }
        return NpyArray.ofDoubles(new int[] {rows.length, cols}, flat);
    }

    /** A [a][b][c] array (e.g. hidden states [L][T][d] or cells [T][L+1][d]); equally long throughout. */
    public static NpyArray cube(double[][][] values) {
        int b = values.length == 0 ? 0 : values[0].length;
        int c = b == 0 ? 0 : values[0][0].length;
        double[] flat = new double[values.length * b * c];
        int o = 0;
        for (double[][] plane : values) {
            NpyArray m = matrix(plane);
            if (m.shape()[0] != b || m.shape()[1] != c) throw new IllegalArgumentException("ragged array");
            System.arraycopy(m.asDoubles(), 0, flat, o, b * c);
            o += b * c;
        }
        return NpyArray.ofDoubles(new int[] {values.length, b, c}, flat);
    }
}
