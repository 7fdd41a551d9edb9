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
 * order), so they agree element for element. Both modes run one kernel on float lanes: exact mode
 * accumulates {@code values[code] * hx}, int8 mode {@code q8(values)[code] * q8(hx)} (integers, summed
 * exactly; see {@link Activation}); each group is folded in with {@code activation scale * norm}
 * and the int8 codebook scale is applied once per row. The float16 norms are widened to float32 once,
 * when the view is made (a 64th of the codes' size at group 128), so the kernels read plain floats.
 */
public final class PackedCqMatrix {
    static final VectorSpecies<Byte> B16 = ByteVector.SPECIES_128;
    static final VectorSpecies<Integer> I16 = IntVector.SPECIES_512;
    static final VectorSpecies<Float> F16 = Lanes.F16;
    private static final ValueLayout.OfShort FP16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final String name;
    private final MemorySegment codes;
    /** Every row's group norms as float32, shared by row slices; this matrix's start at {@link #normBase}. */
    private final float[] norms;
    private final int normBase;
    private final int rows;
    private final int cols;
    private final int colsPad;
    private final int group;
    private final int groups;
    private final int rowBytes;
    private final CodeLayout layout;
    private final float[] values;
    private final Int8Codebook codebook8;
    private final NibbleTables tablesExact;
    private final NibbleTables tables8;

    private PackedCqMatrix(String name, MemorySegment codes, float[] norms, int normBase, int rows, int cols, int group,
            CodeLayout layout, float[] values, Int8Codebook codebook8) {
        this.name = name;
        this.codes = codes;
        this.norms = norms;
        this.normBase = normBase;
        this.rows = rows;
        this.cols = cols;
        this.group = group;
        this.colsPad = Math.ceilDiv(cols, group) * group;
        this.groups = colsPad / group;
        this.rowBytes = colsPad * layout.bits() / 8;
        this.layout = layout;
        this.values = values;
        this.codebook8 = codebook8;
        byte[] b8 = codebook8.values();
        float[] q8 = new float[b8.length];
        for (int i = 0; i < q8.length; i++) q8[i] = b8[i];
        this.tablesExact = NibbleTables.of(values);
        this.tables8 = NibbleTables.of(q8);
    }

    /**
     * A view over one CQ blob. {@code values} maps each stored code to its codebook value (already
     * divided by sqrt(group)): 4 entries for 2-bit and ternary crumbs, 16 for 4-bit.
     */
    public static PackedCqMatrix over(String name, MemorySegment blob, int rows, int cols, int group, int codeBits,
            float[] values) {
        CodeLayout layout = new CodeLayout(codeBits);
        if (rows <= 0 || cols <= 0) throw new IllegalArgumentException(name + ": empty shape [" + rows + ", " + cols + "]");
        if (!Hadamard.isPowerOfTwo(group) || group % layout.codesPerChunk() != 0 || group > Activation.MAX_EXACT_GROUP) {
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
        float[] norms = new float[Math.toIntExact(normBytes / 2)];
        for (int i = 0; i < norms.length; i++) norms[i] = Float.float16ToFloat(blob.get(FP16, codeBytes + 2L * i));
        return new PackedCqMatrix(name, blob.asSlice(0, codeBytes), norms, 0, rows, cols, group,
                layout, values.clone(), Int8Codebook.of(values));
    }

    /** Rows {@code [from, from + count)} as a matrix of their own, sharing the same memory. */
    public PackedCqMatrix rowSlice(int from, int count) {
        if (from < 0 || count <= 0 || from + count > rows) {
            throw new IndexOutOfBoundsException(name + ": rows [" + from + ", " + (from + count) + ") of " + rows);
        }
        return new PackedCqMatrix(name + "[" + from + ":" + (from + count) + "]",
                codes.asSlice((long) from * rowBytes, (long) count * rowBytes),
                norms, normBase + from * groups,
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
        boolean int8 = a.mode() == NumericMode.INT8;
        NibbleTables table = int8 ? tables8 : tablesExact;
        float outScale = int8 ? codebook8.scale() : 1f;
        int r = from;
        for (; r + 4 <= to; r += 4) dot4(a, table, outScale, out, outOff, r);
        for (; r < to; r++) out[outOff + r] = dot1(a, table, outScale, r);
    }

    /** Rows {@code [from, to)} with the single-row kernel only: the baseline the four-row kernel must equal. */
    void rowsSingle(Activation a, float[] out, int outOff, int from, int to) {
        check(a);
        boolean int8 = a.mode() == NumericMode.INT8;
        for (int r = from; r < to; r++) {
            out[outOff + r] = dot1(a, int8 ? tables8 : tablesExact, int8 ? codebook8.scale() : 1f, r);
        }
    }

    private void check(Activation a) {
        if (a.cols() != cols || a.group() != group || !a.layout().equals(layout)) {
            throw new IllegalArgumentException(name + ": activation prepared for cols " + a.cols() + " group " + a.group()
                    + " " + a.layout().bits() + "-bit, matrix needs " + cols + " / " + group + " / " + layout.bits() + "-bit");
        }
    }

    private float norm(int row, int g) {
        return norms[normBase + row * groups + g];
    }

    /** Sixteen bytes of codes, one per int lane (sign-extended; the table lookup wraps the extension away). */
    private IntVector chunk(long offset) {
        return (IntVector) ByteVector.fromMemorySegment(B16, codes, offset, ByteOrder.LITTLE_ENDIAN)
                .convertShape(VectorOperators.B2I, I16, 0);
    }

    /**
     * One row: per group, float lanes {@code sum += value[code] * x}, then {@code acc += sum * (scale * norm)};
     * the 16 lanes are summed once per row. The arithmetic is the same lane for lane as {@link #dot4}.
     */
    private float dot1(Activation a, NibbleTables t, float outScale, int r) {
        float[] x = a.x;
        int chunksPerGroup = group / layout.codesPerChunk();
        boolean pairs = t.pairs();
        long base = (long) r * rowBytes;
        FloatVector acc = FloatVector.zero(F16);
        int c = 0;
        for (int g = 0; g < groups; g++) {
            FloatVector sum = FloatVector.zero(F16);
            for (int k = 0; k < chunksPerGroup; k++, c++) {
                IntVector packed = chunk(base + (long) c * CodeLayout.CHUNK_BYTES);
                int xo = c * layout.codesPerChunk();
                for (int shift = 0; shift < 8; shift += 4) {
                    IntVector nibbles = shift == 0 ? packed : packed.lanewise(VectorOperators.LSHR, shift);
                    sum = t.low(nibbles).fma(FloatVector.fromArray(F16, x, xo), sum);
                    xo += CodeLayout.CHUNK_BYTES;
                    if (pairs) {
                        sum = t.high(nibbles).fma(FloatVector.fromArray(F16, x, xo), sum);
                        xo += CodeLayout.CHUNK_BYTES;
                    }
                }
            }
            acc = sum.fma(FloatVector.broadcast(F16, a.scales[g] * norm(r, g)), acc);
        }
        return Lanes.sum(acc) * outScale;
    }

    /** Rows {@code r .. r + 3}, each activation vector loaded once for the four. */
    private void dot4(Activation a, NibbleTables t, float outScale, float[] out, int outOff, int r) {
        float[] x = a.x;
        int chunksPerGroup = group / layout.codesPerChunk();
        boolean pairs = t.pairs();
        long b0 = (long) r * rowBytes, b1 = b0 + rowBytes, b2 = b1 + rowBytes, b3 = b2 + rowBytes;
        FloatVector acc0 = FloatVector.zero(F16), acc1 = acc0, acc2 = acc0, acc3 = acc0;
        int c = 0;
        for (int g = 0; g < groups; g++) {
            FloatVector s0 = FloatVector.zero(F16), s1 = s0, s2 = s0, s3 = s0;
            for (int k = 0; k < chunksPerGroup; k++, c++) {
                long co = (long) c * CodeLayout.CHUNK_BYTES;
                IntVector p0 = chunk(b0 + co), p1 = chunk(b1 + co), p2 = chunk(b2 + co), p3 = chunk(b3 + co);
                int xo = c * layout.codesPerChunk();
                for (int shift = 0; shift < 8; shift += 4) {
                    IntVector n0 = p0, n1 = p1, n2 = p2, n3 = p3;
                    if (shift != 0) {
                        n0 = p0.lanewise(VectorOperators.LSHR, shift);
                        n1 = p1.lanewise(VectorOperators.LSHR, shift);
                        n2 = p2.lanewise(VectorOperators.LSHR, shift);
                        n3 = p3.lanewise(VectorOperators.LSHR, shift);
                    }
                    FloatVector xv = FloatVector.fromArray(F16, x, xo);
                    s0 = t.low(n0).fma(xv, s0);
                    s1 = t.low(n1).fma(xv, s1);
                    s2 = t.low(n2).fma(xv, s2);
                    s3 = t.low(n3).fma(xv, s3);
                    xo += CodeLayout.CHUNK_BYTES;
                    if (pairs) {
                        xv = FloatVector.fromArray(F16, x, xo);
                        s0 = t.high(n0).fma(xv, s0);
                        s1 = t.high(n1).fma(xv, s1);
                        s2 = t.high(n2).fma(xv, s2);
                        s3 = t.high(n3).fma(xv, s3);
                        xo += CodeLayout.CHUNK_BYTES;
                    }
                }
            }
            float scale = a.scales[g];
            acc0 = s0.fma(FloatVector.broadcast(F16, scale * norm(r, g)), acc0);
            acc1 = s1.fma(FloatVector.broadcast(F16, scale * norm(r + 1, g)), acc1);
            acc2 = s2.fma(FloatVector.broadcast(F16, scale * norm(r + 2, g)), acc2);
            acc3 = s3.fma(FloatVector.broadcast(F16, scale * norm(r + 3, g)), acc3);
        }
        Lanes.sum4(acc0, acc1, acc2, acc3, outScale, out, outOff + r);
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
