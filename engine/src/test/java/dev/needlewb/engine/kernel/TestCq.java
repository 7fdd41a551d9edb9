package dev.needlewb.engine.kernel;

import java.lang.foreign.MemorySegment;
import java.util.Random;

/**
 * A random CQ matrix packed by the test itself (SPEC section 5: LSB-first codes per row, then
 * float16 norms), with its dense double-precision dequantization for reference products.
 */
final class TestCq {
    /** The released header CQ2 codebook (already divided by sqrt(128)). */
    static final float[] CB2 = {-0.1331721395254135f, -0.03990209102630615f, 0.04003528133034706f, 0.13346044719219208f};
    /** Ternary crumbs 3, 0, 1 mean -c, 0, +c; crumb 2 never occurs. */
    static final float[] TERNARY = {0f, (float) (1.2240064 / Math.sqrt(128)), 0f, (float) (-1.2240064 / Math.sqrt(128))};

    final int rows, cols, group, bits, colsPad;
    final int[][] codes;
    final short[][] norms;
    final float[] values;
    final PackedCqMatrix matrix;

    TestCq(Random rnd, int rows, int cols, int group, int bits, float[] values) {
        this.rows = rows;
        this.cols = cols;
        this.group = group;
        this.bits = bits;
        this.values = values;
        this.colsPad = Math.ceilDiv(cols, group) * group;
        codes = new int[rows][colsPad];
        norms = new short[rows][colsPad / group];
        boolean ternary = values == TERNARY;
        for (int r = 0; r < rows; r++) {
            for (int k = 0; k < colsPad; k++) {
                int c = rnd.nextInt(1 << bits);
                codes[r][k] = ternary && c == 2 ? 1 : c;
            }
            for (int g = 0; g < norms[r].length; g++) {
                norms[r][g] = Float.floatToFloat16((float) (0.05 + rnd.nextDouble()));
            }
        }
        matrix = PackedCqMatrix.over("test", MemorySegment.ofArray(pack()), rows, cols, group, bits, values);
    }

    static float[] cb4() {
        float[] v = new float[16];
        for (int i = 0; i < 16; i++) v[i] = (float) ((i - 7.5) * 0.19 / Math.sqrt(128));
        return v;
    }

    private byte[] pack() {
        int rowBytes = colsPad * bits / 8;
        int groups = colsPad / group;
        byte[] blob = new byte[rows * rowBytes + rows * groups * 2];
        for (int r = 0; r < rows; r++) {
            for (int k = 0; k < colsPad; k++) {
                int bit = k * bits;
                blob[r * rowBytes + (bit >>> 3)] |= (byte) (codes[r][k] << (bit & 7));
            }
            for (int g = 0; g < groups; g++) {
                int at = rows * rowBytes + (r * groups + g) * 2;
                blob[at] = (byte) norms[r][g];
                blob[at + 1] = (byte) (norms[r][g] >> 8);
            }
        }
        return blob;
    }

    /** Dense w_hat row in double: per group (values[code] * norm) @ H_g, cropped to cols. */
    double[] denseRow(int r) {
        double[] w = new double[colsPad];
        for (int g = 0; g < colsPad / group; g++) {
            double n = Float.float16ToFloat(norms[r][g]);
            for (int j = 0; j < group; j++) {
                double s = 0;
                for (int k = 0; k < group; k++) {
                    s += values[codes[r][g * group + k]] * n * hadamard(k, j, group);
                }
                w[g * group + j] = s;
            }
        }
        return java.util.Arrays.copyOf(w, cols);
    }

    /**
     * The kernel's contract as scalar code ({@link Lanes}; int8 on 2 bits, or 4 bits and at least 128 rows: {@link #blockContractRow}): per group, logical lane j fuses
     * {@code value[code] * x} of code j of every chunk's planes in order, then {@code acc += s * (scale *
     * norm)}; the 16 lanes are summed in the pairwise tree (i with i ^ 8, then i ^ 4, i ^ 2, i ^ 1).
     */
    float contractRow(int r, Activation a) {
        boolean int8 = a.mode() == NumericMode.INT8;
        Int8Codebook cb8 = Int8Codebook.of(values);
        if (int8 && (bits == 2 || rows >= 128)) return blockContractRow(r, a, cb8);
        float[] table = new float[values.length];
        for (int i = 0; i < table.length; i++) table[i] = int8 ? cb8.values()[i] : values[i];
        CodeLayout layout = new CodeLayout(bits);
        int perChunk = layout.codesPerChunk();
        float[] acc = new float[16];
        for (int g = 0; g < colsPad / group; g++) {
            float[] s = new float[16];
            for (int c = g * group / perChunk; c < (g + 1) * group / perChunk; c++) {
                for (int p = 0; p < layout.planes(); p++) {
                    for (int j = 0; j < 16; j++) {
                        int code = codes[r][c * perChunk + j * layout.planes() + p];
                        s[j] = Math.fma(table[code], a.x[c * perChunk + p * 16 + j], s[j]);
                    }
                }
            }
            float factor = a.scales[g] * Float.float16ToFloat(norms[r][g]);
            for (int j = 0; j < 16; j++) acc[j] = Math.fma(s[j], factor, acc[j]);
        }
        for (int span = 8; span >= 1; span >>= 1) {
            for (int j = 0; j < span; j++) acc[j] += acc[j + span];
        }
        return acc[0] * (int8 ? cb8.scale() : 1f);
    }

    /**
     * The int8 block contract ({@link RowBlocks}) as scalar code: per group the exact integer sum
     * {@code S = sum q8(value)[code] * q8(x)}, folded in order as {@code acc = fma(S, scale * norm, acc)};
     * the result is {@code acc * codebook scale}.
     */
    private float blockContractRow(int r, Activation a, Int8Codebook cb8) {
        byte[] q8 = cb8.values();
        float acc = 0f;
        for (int g = 0; g < colsPad / group; g++) {
            long sum = 0;
            for (int k = g * group; k < (g + 1) * group; k++) sum += (long) q8[codes[r][k]] * a.quantized(k);
            acc = Math.fma((float) sum, a.scales[g] * Float.float16ToFloat(norms[r][g]), acc);
        }
        return acc * cb8.scale();
    }

    /** Entry (i, j) of the orthonormal Sylvester Walsh-Hadamard matrix of size n. */
    static double hadamard(int i, int j, int n) {
        return (Integer.bitCount(i & j) % 2 == 0 ? 1 : -1) / Math.sqrt(n);
    }

    static float[] randomVector(Random rnd, int n) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) x[i] = (float) rnd.nextGaussian();
        return x;
    }
}
