package dev.needlewb.converter.cq;

import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Invariants of the quantizer on seeded random matrices (no golden data). */
class CqQuantizerPropertiesTest {

    private static float[] gaussian(long seed, int n, double sigma) {
        Random random = new Random(seed);
        float[] w = new float[n];
        for (int i = 0; i < n; i++) w[i] = (float) (random.nextGaussian() * sigma);
        return w;
    }

    /** Index of the entry nearest to x, ties to the smaller index, in float64. */
    private static int nearest(double x, float[] cb) {
        int best = 0;
        for (int k = 1; k < cb.length; k++) if (Math.abs(x - cb[k]) < Math.abs(x - cb[best])) best = k;
        return best;
    }

    @ParameterizedTest
    @CsvSource({"2, 128", "3, 128", "4, 128", "5, 128", "2, 64", "4, 64"})
    void codesAreTheNearestEntriesOfTheExactUnitVectorAwayFromMidpoints(int bits, int group) throws WorkbenchException {
        int rows = 40;
        int cols = 3 * group;
        float[] w = gaussian(bits * 1000L + group, rows * cols, 0.02);
        CqQuantizer quantizer = CqQuantizer.of(bits, group);
        CqCodes q = quantizer.quantize("random", w, rows, cols);
        float[] cb = quantizer.codebook();
        double s = Fwht.scale(group);
        int nearMidpoint = 0;
        for (int r = 0; r < rows; r++) {
            for (int g = 0; g < cols / group; g++) {
                // The rotation as a plain float64 sum over the matrix entries, independent of the FWHT.
                double[] rot = new double[group];
                double sumSq = 0;
                for (int j = 0; j < group; j++) {
                    for (int i = 0; i < group; i++) {
                        double h = Integer.bitCount(i & j) % 2 == 0 ? s : -s;
                        rot[j] += w[r * cols + g * group + i] * h;
                    }
                    sumSq += rot[j] * rot[j];
                }
                double norm = Math.sqrt(sumSq);
                // float16 keeps 11 bits: the stored norm is within half a float16 ulp (2^-11 relative).
                assertThat(Math.abs(Float.float16ToFloat(q.norm(r, g)) - norm)).isLessThanOrEqualTo(norm * 0x1p-11);
                for (int j = 0; j < group; j++) {
                    double u = rot[j] / norm;
                    int code = q.code(r, g * group + j);
                    int exact = nearest(u, cb);
                    // float32 rounding of the rotation, norm and division moves u by a few 1e-8:
                    // within 1e-6 of a midpoint either neighbour is acceptable.
                    double margin = Math.abs(Math.abs(u - cb[exact]) - Math.abs(u - cb[code]));
                    if (code != exact) {
                        assertThat(margin).as("row %d col %d", r, g * group + j).isLessThan(1e-6);
                        nearMidpoint++;
                    }
                }
            }
        }
        System.out.printf("record bits %d, group %d: %d of %d codes differ from the float64 nearest entry (all within 1e-6 of a midpoint)%n",
                bits, group, nearMidpoint, rows * cols);
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4, 5})
    void allZeroGroupsGetTheCodeNearestZeroAndNormZero(int bits) throws WorkbenchException {
        CqQuantizer quantizer = CqQuantizer.of(bits, 128);
        float[] w = gaussian(bits, 3 * 256, 0.02);
        Arrays.fill(w, 128, 256, 0f);        // row 0, second group
        Arrays.fill(w, 2 * 256, 3 * 256, 0f); // row 2 entirely
        CqCodes q = quantizer.quantize("zeros", w, 3, 256);
        int zeroCode = nearest(0.0, quantizer.codebook());
        for (int[] rg : new int[][] {{0, 1}, {2, 0}, {2, 1}}) {
            assertThat(q.norm(rg[0], rg[1])).isZero();
            for (int j = 0; j < 128; j++) assertThat(q.code(rg[0], rg[1] * 128 + j)).isEqualTo(zeroCode);
        }
        assertThat(q.norm(0, 0)).isNotZero();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 77, 128, 200, 300})
    void widthsThatAreNotWholeGroupsQuantizeAsIfZeroPadded(int cols) throws WorkbenchException {
        int rows = 5;
        int inPad = (cols + 127) / 128 * 128;
        float[] w = gaussian(cols, rows * cols, 0.02);
        float[] padded = new float[rows * inPad];
        for (int r = 0; r < rows; r++) System.arraycopy(w, r * cols, padded, r * inPad, cols);
        CqQuantizer quantizer = CqQuantizer.of(4, 128);
        CqCodes q = quantizer.quantize("narrow", w, rows, cols);
        CqCodes p = quantizer.quantize("padded", padded, rows, inPad);
        assertThat(q.inPad()).isEqualTo(inPad);
        assertThat(q.codes()).containsExactly(p.codes());
        assertThat(q.norms()).containsExactly(p.norms());
    }

    @Test
    void scalingAGroupByAPowerOfTwoKeepsItsCodesAndScalesItsNormExactly() throws WorkbenchException {
        // Multiplying by 4 is exact at every float32 step (rotation, squares, sum, sqrt, division),
        // so codes are identical and the float16 norm is exactly 4 times larger.
        float[] w = gaussian(9, 8 * 256, 0.02);
        float[] w4 = w.clone();
        for (int i = 0; i < w4.length; i++) w4[i] *= 4;
        CqQuantizer quantizer = CqQuantizer.of(3, 128);
        CqCodes a = quantizer.quantize("w", w, 8, 256);
        CqCodes b = quantizer.quantize("4w", w4, 8, 256);
        assertThat(b.codes()).containsExactly(a.codes());
        for (int i = 0; i < a.norms().length; i++) {
            assertThat(Float.float16ToFloat(b.norms()[i])).isEqualTo(4 * Float.float16ToFloat(a.norms()[i]));
        }
    }

    @Test
    void parallelSplitGivesTheSameResultAsRowByRow() throws WorkbenchException {
        int rows = 700;
        int cols = 512;
        float[] w = gaussian(3, rows * cols, 0.05);
        CqQuantizer quantizer = CqQuantizer.of(2, 128);
        CqCodes all = quantizer.quantize("big", w, rows, cols);
        for (int r = 0; r < rows; r += 97) {
            CqCodes one = quantizer.quantize("row", Arrays.copyOfRange(w, r * cols, (r + 1) * cols), 1, cols);
            assertThat(Arrays.copyOfRange(all.codes(), r * cols, (r + 1) * cols)).containsExactly(one.codes());
            assertThat(Arrays.copyOfRange(all.norms(), r * 4, (r + 1) * 4)).containsExactly(one.norms());
        }
    }

    @Test
    void subnormalWeightsGiveNormZeroAndTheZeroCodeLikeUpstream() throws WorkbenchException {
        // Upstream: rot ** 2 underflows to 0 in float32, unit = rot / 1e-12 is tiny, so every code is
        // the one nearest 0 and the float16 norm is 0.
        float[] w = new float[128];
        for (int i = 0; i < w.length; i++) w[i] = (i % 3 - 1) * Float.MIN_VALUE * (i + 1);
        CqQuantizer quantizer = CqQuantizer.of(4, 128);
        CqCodes q = quantizer.quantize("tiny", w, 1, 128);
        int zeroCode = nearest(0.0, quantizer.codebook());
        assertThat(q.norm(0, 0)).isZero();
        for (int j = 0; j < 128; j++) assertThat(q.code(0, j)).isEqualTo(zeroCode);
    }

    @Test
    void normsUpToTheFloat16MaximumAreStored() throws WorkbenchException {
        // One nonzero weight v in a group rotates to 128 coordinates of v * s; the norm is about v.
        float[] w = new float[128];
        w[5] = 65504f;
        CqCodes q = CqQuantizer.of(2, 128).quantize("edge", w, 1, 128);
        assertThat(Float.float16ToFloat(q.norm(0, 0))).isEqualTo(65504f);
    }

    @ParameterizedTest
    @ValueSource(floats = {70000f, 1e38f, Float.MAX_VALUE})
    void hugeGroupsAreRefusedInsteadOfStoringAnInfiniteNorm(float big) {
        float[] w = gaussian(4, 3 * 256, 0.02);
        for (int i = 2 * 256 + 128; i < 3 * 256; i++) w[i] = i % 2 == 0 ? big : -big;
        // the row and group are named in the wording only (no field holds a position inside a tensor)
        assertThat(refused(ErrorKind.NON_FINITE, () -> CqQuantizer.of(2, 128).quantize("layer00.q_proj", w, 3, 256)))
                .hasMessageContaining("layer00.q_proj")
                .hasMessageContaining("group 1 of row 2")
                .hasMessageContaining("float16");
    }

    @ParameterizedTest
    @ValueSource(floats = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY})
    void nonFiniteWeightsAreRefusedWithTheirPosition(float bad) {
        float[] w = gaussian(5, 600 * 256, 0.02);
        w[3 * 256 + 17] = bad;
        w[400 * 256 + 2] = bad; // a later one in another parallel task must not win
        assertThat(refused(ErrorKind.NON_FINITE, () -> CqQuantizer.of(4, 128).quantize("embedding", w, 600, 256)))
                .hasMessageContaining("embedding")
                .hasMessageContaining("(row 3, col 17)")
                .hasMessageContaining(String.valueOf(bad));
    }

    @Test
    void refusesAShapeTheWeightsDoNotFill() {
        refused(ErrorKind.SHAPE_MISMATCH, () -> CqQuantizer.of(2, 128).quantize("t", new float[10], 3, 4));
    }

    @Test
    void refusesGroupsTheFormatCannotHave() {
        assertThatThrownBy(() -> CqQuantizer.of(2, 96)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CqQuantizer.of(2, 256)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CqQuantizer.of(6, 128)).isInstanceOf(IllegalArgumentException.class);
    }
}
