package dev.needlewb.engine.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * A CQ weight matrix [rows, cols] as a view over its packed blob (SPEC section 5): the codes of
 * every row ({@code colsPad * bits / 8} bytes each, LSB-first) then one float16 norm per row and
 * group. Nothing is dequantized: per group {@code dot(w_hat, x) = norm * dot(values[codes], H_g x)},
 * with {@code H_g x} prepared once in an {@link Activation}.
 *
 * <p>Kernels: a four-row kernel that loads each activation vector once for four rows and a
 * single-row kernel for the tail. Both run exactly the same per-row arithmetic (same lanes, same
 * order), so they agree element for element. Exact mode accumulates float32 lanes
 * {@code values[code] * hx}; int8 mode accumulates int32 lanes {@code q8(values)[code] * q8(hx)}
 * per group and folds the group into float lanes with {@code activation scale * norm}, the
 * codebook scale being applied once per row.
 */
public final class PackedCqMatrix {
    static final VectorSpecies<Byte> B16 = ByteVector.SPECIES_128;
    static final VectorSpecies<Integer> I16 = IntVector.SPECIES_512;
    static final VectorSpecies<Float> F16 = Lanes.F16;
    private static final ValueLayout.OfShort FP16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final String name;
    private final MemorySegment codes;
    private final MemorySegment norms;
    private final int rows;
    private final int cols;
    private final int colsPad;
    private final int group;
    private final int groups;
    private final int rowBytes;
    private final CodeLayout layout;
    private final float[] values;
    private final Int8Codebook codebook8;
    private final IntVector valueBits;
    private final IntVector values8;

    private PackedCqMatrix(String name, MemorySegment codes, MemorySegment norms, int rows, int cols, int group,
            CodeLayout layout, float[] values, Int8Codebook codebook8) {
        this.name = name;
        this.codes = codes;
        this.norms = norms;
        this.rows = rows;
        this.cols = cols;
        this.group = group;
        this.colsPad = Math.ceilDiv(cols, group) * group;
        this.groups = colsPad / group;
        this.rowBytes = colsPad * layout.bits() / 8;
        this.layout = layout;
        this.values = values;
        this.codebook8 = codebook8;
        this.valueBits = FloatVector.fromArray(F16, java.util.Arrays.copyOf(values, F16.length()), 0).reinterpretAsInts();
        int[] q8 = new int[I16.length()];
        byte[] b8 = codebook8.values();
        for (int i = 0; i < b8.length; i++) q8[i] = b8[i];
        this.values8 = IntVector.fromArray(I16, q8, 0);
    }

    /**
     * A view over one CQ blob. {@code values} maps each stored code to its codebook value (already
     * divided by sqrt(group)): 4 entries for 2-bit and ternary crumbs, 16 for 4-bit.
     */
    public static PackedCqMatrix over(String name, MemorySegment blob, int rows, int cols, int group, int codeBits,
            float[] values) {
        CodeLayout layout = new CodeLayout(codeBits);
        if (rows <= 0 || cols <= 0) throw new IllegalArgumentException(name + ": empty shape [" + rows + ", " + cols + "]");
        if (!Hadamard.isPowerOfTwo(group) || group % layout.codesPerChunk() != 0) {
            throw new IllegalArgumentException(name + ": group " + group + " unsupported for " + codeBits + "-bit codes");
        }
        if (values.length != 1 << codeBits) {
            throw new IllegalArgumentException(name + ": " + values.length + " codebook values for " + codeBits + "-bit codes");
        }
        long colsPad = (long) Math.ceilDiv(cols, group) * group;
        long codeBytes = rows * (colsPad * codeBits / 8);
        long normBytes = rows * (colsPad / group) * 2;
        if (blob.byteSize() != codeBytes + normBytes) {
            throw new IllegalArgumentException(name + ": blob holds " + blob.byteSize() + " bytes, ["
                    + rows + ", " + cols + "] at " + codeBits + " bits / group " + group + " needs " + (codeBytes + normBytes));
        }
        return new PackedCqMatrix(name, blob.asSlice(0, codeBytes), blob.asSlice(codeBytes, normBytes), rows, cols, group,
                layout, values.clone(), Int8Codebook.of(values));
    }

    /** Rows {@code [from, from + count)} as a matrix of their own, sharing the same memory. */
    public PackedCqMatrix rowSlice(int from, int count) {
        if (from < 0 || count <= 0 || from + count > rows) {
            throw new IndexOutOfBoundsException(name + ": rows [" + from + ", " + (from + count) + ") of " + rows);
        }
        return new PackedCqMatrix(name + "[" + from + ":" + (from + count) + "]",
                codes.asSlice((long) from * rowBytes, (long) count * rowBytes),
                norms.asSlice((long) from * groups * 2, (long) count * groups * 2),
                count, cols, group, layout, values, codebook8);
    }

    public String name() { return name; }
    public int rows() { return rows; }
    public int cols() { return cols; }
    public int group() { return group; }
    public CodeLayout layout() { return layout; }

    /** A fresh activation buffer matching this matrix's input (cols, group, code layout). */
    public Activation newActivation(NumericMode mode) {
        return new Activation(cols, group, layout, mode);
    }

    /** {@code out[outOff + r] = dot(w_hat[r], x)} for every row, on the calling thread. */
    public void matvec(Activation a, float[] out, int outOff) {
        rows(a, out, outOff, 0, rows);
    }

    /** Rows {@code [from, to)}: four-row kernel over whole blocks of four, single-row kernel for the rest. */
    public void rows(Activation a, float[] out, int outOff, int from, int to) {
        check(a);
        int r = from;
        if (a.mode() == NumericMode.EXACT) {
            for (; r + 4 <= to; r += 4) exact4(a.hx, out, outOff, r);
            for (; r < to; r++) out[outOff + r] = exact1(a.hx, r);
        } else {
            for (; r + 4 <= to; r += 4) int8x4(a, out, outOff, r);
            for (; r < to; r++) out[outOff + r] = int8x1(a, r);
        }
    }

    /** Rows {@code [from, to)} with the single-row kernel only: the baseline the four-row kernel must equal. */
    void rowsSingle(Activation a, float[] out, int outOff, int from, int to) {
        check(a);
        for (int r = from; r < to; r++) {
            out[outOff + r] = a.mode() == NumericMode.EXACT ? exact1(a.hx, r) : int8x1(a, r);
        }
    }

    private void check(Activation a) {
        if (a.cols() != cols || a.group() != group || !a.layout().equals(layout)) {
            throw new IllegalArgumentException(name + ": activation prepared for cols " + a.cols() + " group " + a.group()
                    + " " + a.layout().bits() + "-bit, matrix needs " + cols + " / " + group + " / " + layout.bits() + "-bit");
        }
    }

    private float norm(int row, int g) {
        return Float.float16ToFloat(norms.get(FP16, ((long) row * groups + g) * 2));
    }

    /** Sixteen bytes of codes, one per int lane (sign-extended; the plane mask drops the extension). */
    private IntVector chunk(long offset) {
        return (IntVector) ByteVector.fromMemorySegment(B16, codes, offset, ByteOrder.LITTLE_ENDIAN)
                .convertShape(VectorOperators.B2I, I16, 0);
    }

    /** Plane {@code plane} of a chunk as float codebook values: a 16-entry permute of the value bits. */
    private FloatVector lookup(IntVector packed, int plane) {
        return packed.lanewise(VectorOperators.LSHR, plane * layout.bits()).and(layout.mask())
                .selectFrom(valueBits).reinterpretAsFloats();
    }

    /** Plane {@code plane} of a chunk as int8 codebook values in int32 lanes. */
    private IntVector lookup8(IntVector packed, int plane) {
        return packed.lanewise(VectorOperators.LSHR, plane * layout.bits()).and(layout.mask()).selectFrom(values8);
    }

    private float exact1(float[] hx, int r) {
        int planes = layout.planes();
        int chunksPerGroup = group / layout.codesPerChunk();
        long base = (long) r * rowBytes;
        FloatVector acc = FloatVector.zero(F16);
        int c = 0;
        for (int g = 0; g < groups; g++) {
            FloatVector sum = FloatVector.zero(F16);
            for (int k = 0; k < chunksPerGroup; k++, c++) {
                IntVector packed = chunk(base + (long) c * CodeLayout.CHUNK_BYTES);
                int xo = c * layout.codesPerChunk();
                for (int p = 0; p < planes; p++) {
                    sum = lookup(packed, p).fma(FloatVector.fromArray(F16, hx, xo + p * CodeLayout.CHUNK_BYTES), sum);
                }
            }
            acc = sum.fma(FloatVector.broadcast(F16, norm(r, g)), acc);
        }
        return Lanes.sum(acc);
    }

    private void exact4(float[] hx, float[] out, int outOff, int r) {
        int planes = layout.planes();
        int chunksPerGroup = group / layout.codesPerChunk();
        long b0 = (long) r * rowBytes, b1 = b0 + rowBytes, b2 = b1 + rowBytes, b3 = b2 + rowBytes;
        FloatVector acc0 = FloatVector.zero(F16), acc1 = acc0, acc2 = acc0, acc3 = acc0;
        int c = 0;
        for (int g = 0; g < groups; g++) {
            FloatVector s0 = FloatVector.zero(F16), s1 = s0, s2 = s0, s3 = s0;
            for (int k = 0; k < chunksPerGroup; k++, c++) {
                long co = (long) c * CodeLayout.CHUNK_BYTES;
                IntVector p0 = chunk(b0 + co), p1 = chunk(b1 + co), p2 = chunk(b2 + co), p3 = chunk(b3 + co);
                int xo = c * layout.codesPerChunk();
                for (int p = 0; p < planes; p++) {
                    FloatVector x = FloatVector.fromArray(F16, hx, xo + p * CodeLayout.CHUNK_BYTES);
                    s0 = lookup(p0, p).fma(x, s0);
                    s1 = lookup(p1, p).fma(x, s1);
                    s2 = lookup(p2, p).fma(x, s2);
                    s3 = lookup(p3, p).fma(x, s3);
                }
            }
            acc0 = s0.fma(FloatVector.broadcast(F16, norm(r, g)), acc0);
            acc1 = s1.fma(FloatVector.broadcast(F16, norm(r + 1, g)), acc1);
            acc2 = s2.fma(FloatVector.broadcast(F16, norm(r + 2, g)), acc2);
            acc3 = s3.fma(FloatVector.broadcast(F16, norm(r + 3, g)), acc3);
        }
        out[outOff + r] = Lanes.sum(acc0);
        out[outOff + r + 1] = Lanes.sum(acc1);
        out[outOff + r + 2] = Lanes.sum(acc2);
        out[outOff + r + 3] = Lanes.sum(acc3);
    }

    private float int8x1(Activation a, int r) {
        int[] q = a.q;
        int planes = layout.planes();
        int chunksPerGroup = group / layout.codesPerChunk();
        long base = (long) r * rowBytes;
        FloatVector acc = FloatVector.zero(F16);
        int c = 0;
        for (int g = 0; g < groups; g++) {
            IntVector sum = IntVector.zero(I16);
            for (int k = 0; k < chunksPerGroup; k++, c++) {
                IntVector packed = chunk(base + (long) c * CodeLayout.CHUNK_BYTES);
                int xo = c * layout.codesPerChunk();
                for (int p = 0; p < planes; p++) {
                    sum = sum.add(lookup8(packed, p).mul(IntVector.fromArray(I16, q, xo + p * CodeLayout.CHUNK_BYTES)));
                }
            }
            acc = toFloat(sum).fma(FloatVector.broadcast(F16, a.scales[g] * norm(r, g)), acc);
        }
        return Lanes.sum(acc) * codebook8.scale();
    }

    private void int8x4(Activation a, float[] out, int outOff, int r) {
        int[] q = a.q;
        int planes = layout.planes();
        int chunksPerGroup = group / layout.codesPerChunk();
        long b0 = (long) r * rowBytes, b1 = b0 + rowBytes, b2 = b1 + rowBytes, b3 = b2 + rowBytes;
        FloatVector acc0 = FloatVector.zero(F16), acc1 = acc0, acc2 = acc0, acc3 = acc0;
        int c = 0;
        for (int g = 0; g < groups; g++) {
            IntVector s0 = IntVector.zero(I16), s1 = s0, s2 = s0, s3 = s0;
            for (int k = 0; k < chunksPerGroup; k++, c++) {
                long co = (long) c * CodeLayout.CHUNK_BYTES;
                IntVector p0 = chunk(b0 + co), p1 = chunk(b1 + co), p2 = chunk(b2 + co), p3 = chunk(b3 + co);
                int xo = c * layout.codesPerChunk();
                for (int p = 0; p < planes; p++) {
                    IntVector x = IntVector.fromArray(I16, q, xo + p * CodeLayout.CHUNK_BYTES);
                    s0 = s0.add(lookup8(p0, p).mul(x));
                    s1 = s1.add(lookup8(p1, p).mul(x));
                    s2 = s2.add(lookup8(p2, p).mul(x));
                    s3 = s3.add(lookup8(p3, p).mul(x));
                }
            }
            float scale = a.scales[g];
            acc0 = toFloat(s0).fma(FloatVector.broadcast(F16, scale * norm(r, g)), acc0);
            acc1 = toFloat(s1).fma(FloatVector.broadcast(F16, scale * norm(r + 1, g)), acc1);
            acc2 = toFloat(s2).fma(FloatVector.broadcast(F16, scale * norm(r + 2, g)), acc2);
            acc3 = toFloat(s3).fma(FloatVector.broadcast(F16, scale * norm(r + 3, g)), acc3);
        }
        float cbScale = codebook8.scale();
        out[outOff + r] = Lanes.sum(acc0) * cbScale;
        out[outOff + r + 1] = Lanes.sum(acc1) * cbScale;
        out[outOff + r + 2] = Lanes.sum(acc2) * cbScale;
        out[outOff + r + 3] = Lanes.sum(acc3) * cbScale;
    }

    private static FloatVector toFloat(IntVector v) {
        return (FloatVector) v.convert(VectorOperators.I2F, 0);
    }

    /**
     * The dequantized row {@code w_hat[row]} into {@code out[off, off + cols)}: used only for the
     * few rows a step gathers (embedding row, engram slots), never for a whole matrix.
     */
    public void decodeRow(int row, float[] out, int off, float[] scratch) {
        long base = (long) row * rowBytes;
        int bits = layout.bits();
        for (int g = 0; g < groups; g++) {
            float n = norm(row, g);
            for (int k = 0; k < group; k++) {
                int bit = (g * group + k) * bits;
                int code = (codes.get(ValueLayout.JAVA_BYTE, base + (bit >>> 3)) >>> (bit & 7)) & layout.mask();
                scratch[k] = values[code] * n;
            }
            Hadamard.transform(scratch, 0, group);
            int n0 = g * group;
            System.arraycopy(scratch, 0, out, off + n0, Math.min(group, cols - n0));
        }
    }

    /** Length of the float scratch {@link #decodeRow} needs. */
    public int decodeScratchLength() {
        return group;
    }
}
