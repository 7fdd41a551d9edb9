package dev.needlewb.converter.cq;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cq.codebook.Codebooks;
import dev.needlewb.core.simd.VectorWidth;
import java.util.Comparator;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.IntStream;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * CQ quantization of a float32 matrix as upstream's exporter does it ({@code export._cq_pack}):
 * per row, zero-pad to whole groups; per group rotate by the normalized Hadamard, take the L2
 * norm n, code every coordinate of {@code r / max(n, 1e-12)} as its nearest codebook entry (ties
 * to the smaller index) and store n as float16 (round to nearest even).
 *
 * <p>Arithmetic, chosen to agree with upstream everywhere except at decision boundaries:
 * upstream rotates with a float32 sgemm against the float32 matrix {@code (H / sqrt(g))}, whose
 * rounding depends on the BLAS kernel; here the rotation is the float64 FWHT times that float32
 * entry, rounded once to float32 (the correctly rounded product in all but astronomically rare
 * cases). Everything after the rotation follows upstream's float32 operations exactly: the
 * squares, NumPy's 8-accumulator pairwise sum, the square root, the division and the
 * {@code abs(x - left) <= abs(x - right)} tie rule.
 *
 * <p>Refused with a {@link WorkbenchException}: a NaN or infinite weight, and a group whose norm
 * does not fit float16 (a norm of 65520 or more rounds to infinity). Upstream writes such groups
 * without complaint (checked with NumPy): a norm beyond float16 is stored as infinity; once the
 * float32 squares overflow (coordinates beyond about 1.8e19) the norm is infinite and the codes
 * become those of 0 (or of NaN, the last entry, where a rotated coordinate itself overflowed); a
 * NaN weight gives a NaN norm and the last entry for its whole group. All of these dequantize to
 * infinities or NaNs. Any float32 overflow in the norm implies a norm beyond float16, so refusing
 * those groups keeps the arithmetic finite without rescaling. Tiny groups follow upstream: with
 * a norm below 1e-12 the coordinates are divided by 1e-12 (subnormal weights: every code is that
 * of 0), and a norm below 2^-25 stores as float16 zero.
 *
 * <p>Every code and norm is the same at every vector width: the coding is lane by lane, and the sum
 * of squares keeps NumPy's 8 accumulators whatever the width.
 */
public final class CqQuantizer {
    /** NumPy's pairwise sum keeps 8 accumulators, its logical lanes. */
    private static final int ACCUMULATORS = 8;
    /**
     * The accumulators' physical vectors: one of 8 lanes, or two of 4 at 128 bits. At 512 bits a
     * 256-bit vector, since a 16-lane one would add a different set of elements in each lane.
     */
    private static final VectorSpecies<Float> SUMS = VectorWidth.floatsFor(Math.min(ACCUMULATORS, VectorWidth.FLOAT_LANES));
    private static final int SUM_LANES = SUMS.length();
    /** The coding runs on the full width: each lane codes one coordinate. */
    private static final VectorSpecies<Float> F = VectorWidth.FLOATS;
    private static final VectorSpecies<Integer> I = VectorWidth.INTS;
    private static final int CODING_LANES = F.length();
    /**
     * The codes of one store: one per coding lane, or 8 (two coding vectors) at 4 lanes, the
     * narrowest byte shape. A group narrower than this (8 at 512 bits) is coded by the scalar loop.
     */
    private static final VectorSpecies<Byte> CODES = VectorWidth.bytesFor(CODING_LANES);
    private static final int CODES_PER_STORE = CODES.length();
    private static final int MAX_GROUP = 128;
    private static final float MIN_NORM = 1e-12f;
    /** About this many weights make one task of the row-parallel split. */
    private static final int TASK_WEIGHTS = 1 << 16;

    private final int recordBits;
    private final int group;
    private final float[] codebook;
    private final double scale;

    private CqQuantizer(int recordBits, int group) {
        this.recordBits = recordBits;
        this.group = group;
        this.codebook = Codebooks.of(recordBits, group);
        this.scale = Fwht.scale(group);
    }

    /**
     * A quantizer for record bits 2, 3, 4 or {@value Codebooks#TERNARY_RECORD_BITS} (ternary) and a
     * power-of-two group of 8 to 128 elements (NumPy's pairwise sum is one block up to 128).
     */
    public static CqQuantizer of(int recordBits, int group) {
        if (group < ACCUMULATORS || group > MAX_GROUP || Integer.bitCount(group) != 1) {
            throw new IllegalArgumentException("CQ group must be a power of two in [8, 128], got " + group);
        }
        return new CqQuantizer(recordBits, group);
    }

    public int recordBits() {
        return recordBits;
    }

    public int group() {
        return group;
    }

    public float[] codebook() {
        return codebook.clone();
    }

    /**
     * Quantizes the row-major float32 matrix {@code weights[rows][cols]}; {@code tensor} names it
     * in errors. Large matrices are split over the common fork-join pool by rows.
     */
    public CqCodes quantize(String tensor, float[] weights, int rows, int cols) throws WorkbenchException {
        Objects.requireNonNull(tensor, "tensor");
        if (rows < 0 || cols < 0 || (long) rows * cols != weights.length) {
            throw new WorkbenchException(ErrorKind.SHAPE_MISMATCH, "tensor " + tensor + ": " + weights.length
                    + " weights do not fill a [" + rows + ", " + cols + "] matrix");
        }
        int groups = (cols + group - 1) / group;
        long codeCount = (long) rows * groups * group;
        if (codeCount > Integer.MAX_VALUE - 8) {
            throw new WorkbenchException(ErrorKind.SHAPE_MISMATCH, "tensor " + tensor + ": [" + rows + ", " + cols
                    + "] is too large to quantize in one array (" + codeCount + " codes)");
        }
        byte[] codes = new byte[(int) codeCount];
        short[] norms = new short[rows * groups];
        int rowsPerTask = Math.max(1, TASK_WEIGHTS / Math.max(1, groups * group));
        int tasks = (rows + rowsPerTask - 1) / rowsPerTask;
        IntStream taskStream = IntStream.range(0, tasks);
        if (tasks > 1) taskStream = taskStream.parallel();
        Optional<Failure> first = taskStream
                .mapToObj(t -> new Rows(weights, cols, codes, norms)
                        .quantizeRows(t * rowsPerTask, Math.min(rows, (t + 1) * rowsPerTask)))
                .filter(Objects::nonNull)
                .min(Failure.FIRST);
        if (first.isPresent()) throw first.get().toException(tensor, group);
        return new CqCodes(rows, cols, recordBits, group, codes, norms);
    }

    /** Why a group could not be quantized: a non-finite weight at (row, col), or a group norm beyond float16. */
    public record Failure(int row, int col, double value, boolean normOverflow) {
        public WorkbenchException toException(String tensor, int group) {
            if (normOverflow) {
                return new WorkbenchException(ErrorKind.NON_FINITE, "tensor " + tensor + ": group " + col / group + " of row " + row
                        + " (columns " + col + ".." + (col + group - 1) + ") has L2 norm " + String.format("%.6g", value)
                        + ", beyond float16 (max 65504) in which CQ stores norms");
            }
            return new WorkbenchException(ErrorKind.NON_FINITE, "tensor " + tensor + ": weight at (row " + row + ", col " + col
                    + ") is " + (float) value + "; CQ quantization needs finite weights");
        }

        /** Row-major order, to report the first of several failures. */
        static final Comparator<Failure> FIRST = Comparator.comparingInt(Failure::row).thenComparingInt(Failure::col);
    }

    /** A new per-thread coder of single groups with this quantizer's codebook and group. */
    GroupCoder coder() {
        return new GroupCoder();
    }

    /** The rows of one task: each group of each row through one {@link GroupCoder}. */
    private final class Rows {
        private final float[] weights;
        private final int cols;
        private final byte[] codes;
        private final short[] norms;
        private final GroupCoder coder = new GroupCoder();

        Rows(float[] weights, int cols, byte[] codes, short[] norms) {
            this.weights = weights;
            this.cols = cols;
            this.codes = codes;
            this.norms = norms;
        }

        /** Quantizes rows [from, to); returns the first failure in row-major order, or null. */
        Failure quantizeRows(int from, int to) {
            int groups = (cols + group - 1) / group;
            for (int row = from; row < to; row++) {
                for (int g = 0; g < groups; g++) {
                    int col0 = g * group;
                    int at = row * groups + g;
                    Failure failure = coder.quantize(weights, row * cols + col0, Math.min(group, cols - col0), row, col0,
                            codes, at * group, norms, at);
                    if (failure != null) return failure;
                }
            }
            return null;
        }
    }

    /** Quantizes one group at a time; holds the scratch of one thread. */
    final class GroupCoder {
        private final double[] wide = new double[group];
        private final float[] rot = new float[group];
        private final float[] accumulators = new float[ACCUMULATORS];

        private GroupCoder() {}

        /**
         * Quantizes the group {@code src[from, from + real)}, zero-padded to the group size, which
         * is columns {@code col0 ..} of {@code row} (for messages): its codes go to
         * {@code codes[codeAt, codeAt + group)}, its float16 norm to {@code norms[normAt]}.
         * Returns why it cannot be quantized, or null; on failure nothing is written.
         */
        Failure quantize(float[] src, int from, int real, int row, int col0, byte[] codes, int codeAt,
                short[] norms, int normAt) {
            for (int j = 0; j < real; j++) {
                float v = src[from + j];
                if (!Float.isFinite(v)) return new Failure(row, col0 + j, v, false);
                wide[j] = v;
            }
            for (int j = real; j < group; j++) wide[j] = 0.0;
            Fwht.unnormalized(wide, 0, group);
            for (int j = 0; j < group; j++) rot[j] = (float) (wide[j] * scale);
            float norm = (float) Math.sqrt(sumOfSquares(rot));
            short half = Float.floatToFloat16(norm);
            if (Float.isInfinite(Float.float16ToFloat(half))) return new Failure(row, col0, wideNorm(), true);
            norms[normAt] = half;
            encode(rot, Math.max(norm, MIN_NORM), codes, codeAt);
            return null;
        }

        /** The norm of the rotated group in float64, finite for any finite float32 weights (for messages). */
        private double wideNorm() {
            double sum = 0;
            for (double v : wide) sum += v * v;
            return Math.sqrt(sum) * scale;
        }

        /** {@code (rot ** 2).sum()} in float32 exactly as NumPy's pairwise sum of one block. */
        private float sumOfSquares(float[] x) {
            FloatVector low = FloatVector.fromArray(SUMS, x, 0);
            low = low.mul(low);
            FloatVector high = low;
            if (SUM_LANES < ACCUMULATORS) {
                high = FloatVector.fromArray(SUMS, x, SUM_LANES);
                high = high.mul(high);
            }
            for (int i = ACCUMULATORS; i < group; i += ACCUMULATORS) {
                FloatVector v = FloatVector.fromArray(SUMS, x, i);
                low = low.add(v.mul(v));
                if (SUM_LANES < ACCUMULATORS) {
                    FloatVector w = FloatVector.fromArray(SUMS, x, i + SUM_LANES);
                    high = high.add(w.mul(w));
                }
            }
            low.intoArray(accumulators, 0);
            if (SUM_LANES < ACCUMULATORS) high.intoArray(accumulators, SUM_LANES);
            float[] a = accumulators;
            return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
        }

        /**
         * Codes of {@code x / divisor} into {@code codes[out, out + group)}. Upstream picks between the entries either side of x
         * (searchsorted, clipped) by {@code |x - left| <= |x - right|} in float32. The test
         * {@code x - cb[k] > cb[k+1] - x} is monotone in x, true for every pair below x's bracket
         * and false above it, so counting the pairs where it holds gives upstream's index.
         */
        private void encode(float[] x, float divisor, byte[] codes, int out) {
            FloatVector d = FloatVector.broadcast(F, divisor);
            IntVector one = IntVector.broadcast(I, 1);
            int i = 0;
            for (; i + CODES_PER_STORE <= group; i += CODES_PER_STORE) {
                FloatVector u = FloatVector.fromArray(F, x, i).div(d);
                FloatVector next = CODES_PER_STORE > CODING_LANES ? FloatVector.fromArray(F, x, i + CODING_LANES).div(d) : u;
                IntVector code = IntVector.zero(I);
                IntVector nextCode = code;
                for (int k = 0; k + 1 < codebook.length; k++) {
                    FloatVector right = FloatVector.broadcast(F, codebook[k + 1]);
                    VectorMask<Integer> up = u.sub(codebook[k]).compare(VectorOperators.GT, right.sub(u)).cast(I);
                    code = code.add(one, up);
                    if (CODES_PER_STORE > CODING_LANES) {
                        VectorMask<Integer> nextUp = next.sub(codebook[k]).compare(VectorOperators.GT, right.sub(next)).cast(I);
                        nextCode = nextCode.add(one, nextUp);
                    }
                }
                ByteVector stored = (ByteVector) code.convertShape(VectorOperators.I2B, CODES, 0);
                if (CODES_PER_STORE > CODING_LANES) {
                    // the second vector's codes go to the upper half of the store (part -1 of the conversion)
                    stored = stored.or((ByteVector) nextCode.convertShape(VectorOperators.I2B, CODES, -1));
                }
                stored.intoArray(codes, out + i);
            }
            for (; i < group; i++) {
                float u = x[i] / divisor;
                int code = 0;
                for (int k = 0; k + 1 < codebook.length; k++) if (u - codebook[k] > codebook[k + 1] - u) code++;
                codes[out + i] = (byte) code;
            }
        }
    }
}
