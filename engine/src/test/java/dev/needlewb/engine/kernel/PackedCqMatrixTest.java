package dev.needlewb.engine.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

@Tag("width")
@Tag("kernel")
class PackedCqMatrixTest {

    /**
     * bits, value table, group, rows (tails of 1..3 after the four-row blocks; 4-bit int8 runs the lane
     * kernel below 128 rows and the block kernel from 128, with partial blocks), cols (padded or not).
     */
    static List<Arguments> shapes() {
        return List.of(
                Arguments.of(2, TestCq.CB2, 128, 13, 512),
                Arguments.of(2, TestCq.CB2, 128, 7, 200),
                Arguments.of(2, TestCq.CB2, 64, 10, 300),
                Arguments.of(2, TestCq.TERNARY, 128, 9, 256),
                Arguments.of(4, TestCq.cb4(), 128, 11, 512),
                Arguments.of(4, TestCq.cb4(), 64, 6, 100),
                Arguments.of(4, TestCq.cb4(), 128, 3, 64),
                Arguments.of(4, TestCq.cb4(), 128, 137, 512),
                Arguments.of(4, TestCq.cb4(), 64, 130, 100),
                Arguments.of(4, TestCq.cb4(), 512, 128, 1024));
    }

    @ParameterizedTest
    @MethodSource("shapes")
    void exactModeMatchesDoublePrecisionDenseProduct(int bits, float[] values, int group, int rows, int cols) {
        Random rnd = new Random(bits * 1000 + group + rows + cols);
        TestCq t = new TestCq(rnd, rows, cols, group, bits, values);
        float[] x = TestCq.randomVector(rnd, cols);
        Activation a = t.matrix.newActivation(NumericMode.EXACT);
        a.prepare(x, 0);
        float[] out = new float[rows];
        t.matrix.matvec(a, out, 0);
        for (int r = 0; r < rows; r++) {
            double[] w = t.denseRow(r);
            double dot = 0, ww = 0, xx = 0;
            for (int k = 0; k < cols; k++) {
                dot += w[k] * x[k];
                ww += w[k] * w[k];
                xx += (double) x[k] * x[k];
            }
            // float32: the FWHT (<= 7 rounding stages) and a 16-lane sum of <= 1024 products each
            // lose a few ulps relative to |w| |x| (Cauchy-Schwarz scale); 1e-5 leaves ~100x margin.
            assertThat(Math.abs(out[r] - dot)).as("row %d", r).isLessThanOrEqualTo(1e-5 * Math.sqrt(ww * xx));
        }
    }

    @ParameterizedTest
    @MethodSource("shapes")
    void everyRowIsItsKernelsContractBitForBit(int bits, float[] values, int group, int rows, int cols) {
        Random rnd = new Random(7 + rows * cols);
        TestCq t = new TestCq(rnd, rows, cols, group, bits, values);
        float[] x = TestCq.randomVector(rnd, cols);
        for (NumericMode mode : NumericMode.values()) {
            Activation a = t.matrix.newActivation(mode);
            a.prepare(x, 0);
            float[] out = new float[rows];
            t.matrix.matvec(a, out, 0);
            float[] want = new float[rows];
            for (int r = 0; r < rows; r++) want[r] = t.contractRow(r, a);
            // The same operations on the same operands in the same order at every width: no tolerance.
            assertThat(out).as("%s at %s", mode, dev.needlewb.core.simd.VectorWidth.describe()).containsExactly(want);
        }
    }

    @ParameterizedTest
    @MethodSource("shapes")
    void aRowsResultDoesNotDependOnItsBlock(int bits, float[] values, int group, int rows, int cols) {
        Random rnd = new Random(11 + rows * cols);
        TestCq t = new TestCq(rnd, rows, cols, group, bits, values);
        Activation a = t.matrix.newActivation(NumericMode.INT8);
        a.prepare(TestCq.randomVector(rnd, cols), 0);
        float[] all = new float[rows];
        t.matrix.matvec(a, all, 0);
        // A 4-bit slice keeps its matrix's kernel at 128 rows or more; 2-bit runs the block kernel at any size.
        int sliceRows = bits == 4 && rows >= 128 ? 128 : 1;
        for (int r = 0; r < rows; r++) {
            int from = Math.min(r, rows - sliceRows);
            float[] slice = new float[sliceRows];
            t.matrix.rowSlice(from, sliceRows).matvec(a, slice, 0);
            assertThat(slice[r - from]).as("row %d in a slice of %d from row %d", r, sliceRows, from).isEqualTo(all[r]);
        }
    }

    @ParameterizedTest
    @MethodSource("shapes")
    void int8ModeStaysWithinTheQuantizationErrorBound(int bits, float[] values, int group, int rows, int cols) {
        Random rnd = new Random(31 + rows + cols);
        TestCq t = new TestCq(rnd, rows, cols, group, bits, values);
        float[] x = TestCq.randomVector(rnd, cols);
        Activation exact = t.matrix.newActivation(NumericMode.EXACT);
        Activation int8 = t.matrix.newActivation(NumericMode.INT8);
        exact.prepare(x, 0);
        int8.prepare(x, 0);
        float[] e = new float[rows];
        float[] q = new float[rows];
        t.matrix.matvec(exact, e, 0);
        t.matrix.matvec(int8, q, 0);
        Int8Codebook cb8 = Int8Codebook.of(values);
        float[] hx = naturalOrder(exact, t);
        for (int r = 0; r < rows; r++) {
            // Per element: |hx - s_a q| <= s_a / 2 and |cb - s_c q8| <= s_c / 2, so per group
            // |err| <= norm * sum(|cb| s_a / 2 + |hx| s_c / 2 + s_a s_c / 4); plus float32 slack 1e-5 relative.
            double bound = 0, scale = 0;
            for (int g = 0; g < t.colsPad / group; g++) {
                double sa = int8.scales[g];
                double n = Float.float16ToFloat(t.norms[r][g]);
                for (int k = g * group; k < (g + 1) * group; k++) {
                    double cb = values[t.codes[r][k]];
                    bound += n * (Math.abs(cb) * sa / 2 + Math.abs(hx[k]) * cb8.scale() / 2 + sa * cb8.scale() / 4);
                    scale += n * Math.abs(cb * hx[k]);
                }
            }
            assertThat((double) Math.abs(q[r] - e[r])).as("row %d", r).isLessThanOrEqualTo(bound + 1e-5 * scale);
        }
    }

    @ParameterizedTest
    @MethodSource("shapes")
    void int8ModeIsTheIntegerDotProductScaled(int bits, float[] values, int group, int rows, int cols) {
        Random rnd = new Random(5 + rows + cols);
        TestCq t = new TestCq(rnd, rows, cols, group, bits, values);
        Activation a = t.matrix.newActivation(NumericMode.INT8);
        a.prepare(TestCq.randomVector(rnd, cols), 0);
        float[] out = new float[rows];
        t.matrix.matvec(a, out, 0);
        Int8Codebook cb8 = Int8Codebook.of(values);
        byte[] q8 = cb8.values();
        for (int r = 0; r < rows; r++) {
            double sum = 0, mag = 0;
            for (int g = 0; g < t.colsPad / group; g++) {
                long dot = 0, abs = 0;
                for (int k = g * group; k < (g + 1) * group; k++) {
                    int xq = a.quantized(k);
                    assertThat(Math.abs(xq)).isLessThanOrEqualTo(127);
                    dot += (long) q8[t.codes[r][k]] * xq;
                    abs += Math.abs((long) q8[t.codes[r][k]] * xq);
                }
                double f = a.scales[g] * Float.float16ToFloat(t.norms[r][g]) * cb8.scale();
                sum += f * dot;
                mag += f * abs;
            }
            // The integer sums are exact; only the float32 scaling and 16-lane fold round: 1e-6 of the magnitude.
            assertThat(Math.abs(out[r] - sum)).as("row %d", r).isLessThanOrEqualTo(1e-6 * mag);
        }
    }

    @Test
    void threadCountDoesNotChangeAnyBit() {
        Random rnd = new Random(99);
        TestCq big = new TestCq(rnd, 259, 512, 128, 2, TestCq.CB2);
        TestCq small = new TestCq(rnd, 24, 512, 128, 2, TestCq.CB2);
        TestCq other = new TestCq(rnd, 130, 512, 128, 2, TestCq.CB2);
        float[] x = TestCq.randomVector(rnd, 512);
        for (NumericMode mode : NumericMode.values()) {
            Activation a = big.matrix.newActivation(mode);
            a.prepare(x, 0);
            sameBitsOnOneTwoAndThreeThreads(a, mode, big.matrix, small.matrix, other.matrix);
        }
    }

    /**
     * The mHC projections' shapes (4, 4 and 16 rows of 2048 columns, 4-bit), split below 512 bits into
     * tickets of 4 rows per 4 float lanes, and a 2-bit one split into whole 16-row blocks in int8 mode.
     */
    @Test
    void smallWideMatricesSplitIntoKernelBlocksKeepEveryBit() {
        Random rnd = new Random(17);
        TestCq pre = new TestCq(rnd, 4, 2048, 128, 4, TestCq.cb4());
        TestCq post = new TestCq(rnd, 4, 2048, 128, 4, TestCq.cb4());
        TestCq res = new TestCq(rnd, 16, 2048, 128, 4, TestCq.cb4());
        TestCq res2 = new TestCq(rnd, 18, 2048, 128, 2, TestCq.CB2);
        int lanesOf4 = Lanes.W / 4;
        assertThat(RowPool.smallTicketRows(16, 2048, res.matrix.kernelRows(NumericMode.INT8))).isEqualTo(4 * lanesOf4);
        assertThat(RowPool.smallTicketRows(18, 2048, res2.matrix.kernelRows(NumericMode.INT8))).isEqualTo(16);
        assertThat(RowPool.smallTicketRows(24, 512, 4)).isEqualTo(Math.min(24, 16 * lanesOf4));
        float[] x = TestCq.randomVector(rnd, 2048);
        for (NumericMode mode : NumericMode.values()) {
            Activation a4 = pre.matrix.newActivation(mode);
            a4.prepare(x, 0);
            sameBitsOnOneTwoAndThreeThreads(a4, mode, pre.matrix, post.matrix, res.matrix);
            Activation a2 = res2.matrix.newActivation(mode);
            a2.prepare(x, 0);
            sameBitsOnOneTwoAndThreeThreads(a2, mode, res2.matrix);
        }
    }

    private static void sameBitsOnOneTwoAndThreeThreads(Activation a, NumericMode mode, PackedCqMatrix... ms) {
        float[][] one = new float[ms.length][], two = new float[ms.length][], three = new float[ms.length][];
        for (int i = 0; i < ms.length; i++) {
            one[i] = new float[ms[i].rows()];
            two[i] = new float[ms[i].rows()];
            three[i] = new float[ms[i].rows()];
        }
        try (RowPool p1 = new RowPool(1); RowPool p2 = new RowPool(2); RowPool p3 = new RowPool(3)) {
            p1.matvec(a, ms, one);
            p2.matvec(a, ms, two);
            p3.matvec(a, ms, three);
            p2.matvec(a, ms[0], two[0]);
        }
        for (int i = 0; i < ms.length; i++) {
            // A row's arithmetic is the same in any slot of any block, whatever range a ticket holds: bit-identical.
            assertThat(two[i]).as("%s matrix %d, 2 threads", mode, i).containsExactly(one[i]);
            assertThat(three[i]).as("%s matrix %d, 3 threads", mode, i).containsExactly(one[i]);
        }
    }

    @Test
    void decodeRowIsTheDequantizedRow() {
        Random rnd = new Random(3);
        TestCq t = new TestCq(rnd, 5, 200, 128, 4, TestCq.cb4());
        float[] row = new float[200];
        t.matrix.decodeRow(3, row, 0, new float[t.matrix.decodeScratchLength()]);
        double[] w = t.denseRow(3);
        // float32 FWHT of values of magnitude <= 0.2: a few ulps, 1e-6 absolute is ~100x margin.
        for (int k = 0; k < 200; k++) assertThat((double) row[k]).isCloseTo(w[k], org.assertj.core.data.Offset.offset(1e-6));
    }

    @Test
    void rowSliceSeesTheSameRows() {
        Random rnd = new Random(4);
        TestCq t = new TestCq(rnd, 12, 128, 128, 4, TestCq.cb4());
        Activation a = t.matrix.newActivation(NumericMode.EXACT);
        a.prepare(TestCq.randomVector(rnd, 128), 0);
        float[] all = new float[12];
        float[] part = new float[4];
        t.matrix.matvec(a, all, 0);
        t.matrix.rowSlice(8, 4).matvec(a, part, 0);
        assertThat(part).containsExactly(java.util.Arrays.copyOfRange(all, 8, 12));
    }

    @Test
    void mismatchedActivationAndWrongBlobSizeAreRefused() {
        Random rnd = new Random(5);
        TestCq t = new TestCq(rnd, 4, 256, 128, 2, TestCq.CB2);
        Activation wrong = new Activation(256, 128, new CodeLayout(4), NumericMode.EXACT);
        assertThatThrownBy(() -> t.matrix.matvec(wrong, new float[4], 0)).isInstanceOf(IllegalArgumentException.class);
        var blob = java.lang.foreign.MemorySegment.ofArray(new byte[100]);
        assertThatThrownBy(() -> PackedCqMatrix.over("m", blob, 4, 256, 128, 2, TestCq.CB2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs");
    }

    private static float[] naturalOrder(Activation exact, TestCq t) {
        float[] hx = new float[t.colsPad];
        for (int k = 0; k < t.colsPad; k++) hx[k] = exact.x[exact.layout().planeIndex(k)];
        return hx;
    }
}
