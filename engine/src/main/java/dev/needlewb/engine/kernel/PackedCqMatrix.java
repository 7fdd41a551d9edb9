package dev.needlewb.engine.kernel;

import dev.needlewb.core.simd.VectorWidth;
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
 * <p>Arithmetic of exact mode and of 4-bit int8 ({@link Lanes}' 16-lane contract): byte {@code j} of every 16-byte chunk of codes
 * feeds logical lane {@code j}; per group, lane {@code j} accumulates {@code value[code] * x} over the
 * group's chunks and planes in order, then {@code acc += sum * (scale * norm)}; the 16 lanes are summed
 * once per row. Each physical vector covers W of the 16 lanes, and the kernels run the whole row once
 * per part (lanes {@code part W .. part W + W - 1}), so the registers hold one part at a time. The
 * kernel loads each activation vector once for four rows; every row's arithmetic is the same in any of
 * its slots, so every width, thread split and row block gives the same bits. There is one kernel per
 * code width (2-bit and 4-bit): a kernel holding both would pass C2's inlining budget at 4 lanes.
 *
 * <p>Both modes run this kernel on float lanes: exact mode accumulates {@code values[code] * hx}, int8
 * mode {@code q8(values)[code] * q8(hx)} (integers, summed exactly; see {@link Activation}); each group
 * is folded in with {@code activation scale * norm} and the int8 codebook scale is applied once per row.
 * In int8 mode a 2-bit matrix, and a 4-bit one of at least {@link #BLOCK_ROWS_4BIT} rows, run
 * {@link RowBlocks} instead, on a copy of its codes with the rows in lanes (the size of its codes, made
 * on first use): exact integer group sums through table lookups, then one float chain over the groups
 * per row (its own contract, also the same bits at every width). A 4-bit matrix of fewer rows (the mHC
 * projections, 4 and 16 rows of 2048 columns) keeps the lane kernel (see {@link #BLOCK_ROWS_4BIT}). Which kernel a matrix runs depends only on its code width and rows, so a row slice of
 * another size may take the other one. The float16 norms are widened to float32 once,
 * when the view is made (a 64th of the codes' size at group 128), in blocks of 16 rows
 * ({@code [block][group][16]}), the layout {@link RowBlocks} reads.
 */
public final class PackedCqMatrix {
    private static final VectorSpecies<Float> F = Lanes.F;
    /**
     * Least rows of a 4-bit matrix on the int8 block kernel. Its tables cost about ten vector operations
     * per input column and its lookups serve 16 multiply-adds each, while the lane kernel needs no tables
     * and at 16 lanes is faster per multiply-add; the 16-row mHC projection over 2048 columns took three
     * times as long on the block kernel at 512 bits. The logit projection (8192 rows) gains at every
     * width but 512 bits (JMH, 1 thread: 283-338 against 844 us at 128 bits, 310 against 480 at AVX2,
     * 287 against 234 at 512).
     */
    static final int BLOCK_ROWS_4BIT = 128;
    private static final int W = Lanes.W, PARTS = Lanes.PARTS;
    private static final ValueLayout.OfShort FP16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /**
     * Per calling thread: the 16 logical lanes of a block's four rows between the parts and the sum,
     * then from {@link #BLOCK_SUMS} the four sums of a partial block; for {@link RowBlocks}, the 16
     * row accumulators, then from {@link #BLOCK_SUMS} the 16 results of a partial block.
     */
    private static final ThreadLocal<float[]> ROW_LANES = ThreadLocal.withInitial(() -> new float[4 * Lanes.LOGICAL + RowBlocks.ROWS]);
    private static final int BLOCK_SUMS = 4 * Lanes.LOGICAL;
    /**
     * Below 16 lanes an int8 4-bit row is first decoded, a group at a time, to its int8 codebook values
     * (one 16-entry byte lookup per 16 codes, {@link #decodedNibbles}): a 16-entry lookup in W int lanes
     * takes 16 / W permutes and their blends per W codes. At 16 lanes it is one permute, and the direct
     * kernel is faster.
     */
    private static final boolean DECODED_NIBBLES = W < 16;
    /** One chunk of codes as bytes, the shape of the 16-entry byte lookup. */
    private static final VectorSpecies<Byte> CHUNK = VectorWidth.bytesFor(CodeLayout.CHUNK_BYTES);
    /** Per calling thread: the int8 values of a block's four rows, in plane order, grown to the widest matrix. */
    private static final ThreadLocal<byte[]> DECODED = ThreadLocal.withInitial(() -> new byte[0]);

    private final String name;
    private final MemorySegment codes;
    /** The group norms as float32, {@code [row / 16][group][row % 16]}. */
    private final float[] norms;
    /**
     * The codes regrouped for the int8 block kernel, built by the first int8 {@link #bind} of a matrix
     * that runs it (a matrix only gathered from, or run in exact mode, never holds the copy); null until then.
     */
    private volatile RowBlocks blocks;
    private final int rows;
    private final int cols;
    private final int colsPad;
    private final int group;
    private final int groups;
    private final int rowBytes;
    private final CodeLayout layout;
    private final float[] values;
    private final Int8Codebook codebook8;
    private final byte[] codebook8Values;
    private final CodeTable tableExact;
    /** The int8 codebook for the 4-bit lane kernels; null at 2 bits, whose int8 products run {@link RowBlocks}. */
    private final CodeTable table8;
    /** The int8 codebook of a 4-bit matrix as one byte lookup; null at 2 bits. */
    private final ByteVector nibbleValues8;

    private PackedCqMatrix(String name, MemorySegment codes, float[] norms, int rows, int cols, int group,
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
        byte[] b8 = codebook8.values();
        this.codebook8Values = b8;
        this.tableExact = CodeTable.of(values);
        this.table8 = layout.bits() == 4 ? CodeTable.of(widened(b8)) : null;
        this.nibbleValues8 = b8.length == CodeLayout.CHUNK_BYTES ? ByteVector.fromArray(CHUNK, b8, 0) : null;
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
        int groups = Math.toIntExact(colsPad / group);
        float[] norms = new float[Math.multiplyExact(Math.ceilDiv(rows, RowBlocks.ROWS) * RowBlocks.ROWS, groups)];
        for (int r = 0; r < rows; r++) {
            for (int g = 0; g < groups; g++) {
                norms[normIndex(r, g, groups)] = Float.float16ToFloat(blob.get(FP16, codeBytes + 2L * ((long) r * groups + g)));
            }
        }
        return new PackedCqMatrix(name, blob.asSlice(0, codeBytes), norms, rows, cols, group,
                layout, values.clone(), Int8Codebook.of(values));
    }

    private static float[] widened(byte[] values) {
        float[] f = new float[values.length];
        for (int i = 0; i < f.length; i++) f[i] = values[i];
        return f;
    }

    /** Shifts, not division: a row is never negative, and the lane kernels look a norm up per row and group. */
    private static int normIndex(int row, int g, int groups) {
        return ((row >>> 4) * groups + g) * RowBlocks.ROWS + (row & (RowBlocks.ROWS - 1));
    }

    /**
     * Rows {@code [from, from + count)} as a matrix of their own: the packed codes are shared, the norms
     * are copied for the slice's own blocks of 16 rows (and so will a 2-bit slice's regrouped codes be).
     */
    public PackedCqMatrix rowSlice(int from, int count) {
        if (from < 0 || count <= 0 || from + count > rows) {
            throw new IndexOutOfBoundsException(name + ": rows [" + from + ", " + (from + count) + ") of " + rows);
        }
        float[] sliceNorms = new float[Math.ceilDiv(count, RowBlocks.ROWS) * RowBlocks.ROWS * groups];
        for (int r = 0; r < count; r++) {
            for (int g = 0; g < groups; g++) sliceNorms[normIndex(r, g, groups)] = norm(from + r, g);
        }
        return new PackedCqMatrix(name + "[" + from + ":" + (from + count) + "]",
                codes.asSlice((long) from * rowBytes, (long) count * rowBytes), sliceNorms,
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
        bind(a);
        rows(a, out, outOff, 0, rows);
    }

    /**
     * Readies {@code a} for this matrix's kernel (an int8 input of a block-kernel matrix builds the
     * nibble tables of this codebook once per prepared input). Called once, on one thread, before {@link #rows} runs
     * on any.
     */
    void bind(Activation a) {
        check(a);
        if (!usesBlocks(a)) return;
        // Two sessions binding at once may both build it: the same contents, and either copy serves.
        if (blocks == null) blocks = RowBlocks.of(codes, rows, rowBytes, group, layout.bits());
        a.bind(codebook8Values);
    }

    private boolean usesBlocks(Activation a) {
        return usesBlocks(a.mode());
    }

    private boolean usesBlocks(NumericMode mode) {
        return mode == NumericMode.INT8 && (layout.bits() == 2 || rows >= BLOCK_ROWS_4BIT);
    }

    /** The rows one kernel call computes together: a range of rows is cheapest in whole blocks of these. */
    int kernelRows(NumericMode mode) {
        return usesBlocks(mode) ? RowBlocks.ROWS : 4;
    }

    /**
     * Rows {@code [from, to)} of a product whose activation {@link #bind} has readied. Exact mode and
     * 4-bit int8 run four rows at a time; a last block of fewer rows repeats its last row in the
     * kernel's spare slots and keeps only the rows asked for (every row's arithmetic is the same in any
     * slot of any block, so a row's result does not depend on its neighbours). A block-kernel int8 product
     * runs whole blocks of 16 rows and keeps the rows asked for.
     */
    public void rows(Activation a, float[] out, int outOff, int from, int to) {
        check(a);
        if (usesBlocks(a)) blockRows(a, out, outOff, from, to);
        else laneRows(a, out, outOff, from, to);
    }

    /**
     * The 16-lane kernels' rows. A method of its own, so that C2 compiles it apart from the block kernel's
     * dispatch: grown by that call, its compilation inlined less and ran a byte conversion of the 4-bit
     * kernel in Java at 128 bits (a quarter of a decode step).
     */
    private void laneRows(Activation a, float[] out, int outOff, int from, int to) {
        boolean int8 = a.mode() == NumericMode.INT8;
        CodeTable table = int8 ? table8 : tableExact;
        float outScale = int8 ? codebook8.scale() : 1f;
        float[] lanes = ROW_LANES.get();
        boolean decoded = int8 && DECODED_NIBBLES && layout.bits() == 4;
        byte[] values8 = decoded ? decodedRows() : null;
        for (int r = from; r < to; r += 4) {
            int last = to - 1;
            int r1 = Math.min(r + 1, last), r2 = Math.min(r + 2, last), r3 = Math.min(r + 3, last);
            // One call site per kernel in loops over the slots: each inlined copy grows this compilation,
            // and past C2's node budget it stops inlining the Vector API (a byte widening of the decoded
            // kernel then ran in Java, half the 128-bit decode time, in some runs and not others).
            if (decoded) {
                for (int slot = 0; slot < 4; slot++) decodeRow8(slot == 0 ? r : slot == 1 ? r1 : slot == 2 ? r2 : r3, values8, slot * colsPad);
            }
            for (int part = 0; part < PARTS; part++) {
                if (layout.bits() == 2) crumbs(a, table, r, r1, r2, r3, part, lanes);
                else if (decoded) {
                    for (int slot = 0; slot < 4; slot += 2) decodedNibbles(a, values8, slot == 0 ? r : r2, slot == 0 ? r1 : r3, slot, part, lanes);
                } else {
                    nibbles(a, table, r, r1, 0, part, lanes);
                    nibbles(a, table, r2, r3, 2, part, lanes);
                }
            }
            if (r + 4 <= to) {
                Lanes.sum4(lanes, outScale, out, outOff + r);
            } else {
                Lanes.sum4(lanes, outScale, lanes, BLOCK_SUMS);
                System.arraycopy(lanes, BLOCK_SUMS, out, outOff + r, to - r);
            }
        }
    }

    private void blockRows(Activation a, float[] out, int outOff, int from, int to) {
        NibbleTables t = a.tables(codebook8Values);
        RowBlocks blocks = this.blocks;
        float[] scratch = ROW_LANES.get();
        float scale = codebook8.scale();
        for (int b = from / RowBlocks.ROWS; b * RowBlocks.ROWS < to; b++) {
            int first = b * RowBlocks.ROWS, lo = Math.max(from, first), hi = Math.min(to, first + RowBlocks.ROWS);
            int normOff = normIndex(first, 0, groups);
            if (lo == first && hi == first + RowBlocks.ROWS) {
                blocks.block(b, t, a.scales, norms, normOff, scale, scratch, out, outOff + first);
            } else {
                blocks.block(b, t, a.scales, norms, normOff, scale, scratch, scratch, BLOCK_SUMS);
                System.arraycopy(scratch, BLOCK_SUMS + lo - first, out, outOff + lo, hi - lo);
            }
        }
    }

    private byte[] decodedRows() {
        byte[] values8 = DECODED.get();
        if (values8.length < 4 * colsPad + ByteLanes.SLACK) {
            values8 = new byte[4 * colsPad + ByteLanes.SLACK];
            DECODED.set(values8);
        }
        return values8;
    }

    private void check(Activation a) {
        if (a.cols() != cols || a.group() != group || !a.layout().equals(layout)) {
            throw new IllegalArgumentException(name + ": activation prepared for cols " + a.cols() + " group " + a.group()
                    + " " + a.layout().bits() + "-bit, matrix needs " + cols + " / " + group + " / " + layout.bits() + "-bit");
        }
    }

    private float norm(int row, int g) {
        return norms[normIndex(row, g, groups)];
    }

    /** The codes of the next plane, {@code shift} bits above those of {@code lanes}' plane 0. */
    private static IntVector plane(IntVector lanes, int shift) {
        return shift == 0 ? lanes : lanes.lanewise(VectorOperators.LSHR, shift);
    }

    /**
     * Lanes {@code part} of rows {@code r0 .. r3} of a 2-bit matrix, each activation vector loaded once
     * for the four: per group, {@code s += value[code] * x} over the group's chunks and four planes, then
     * {@code acc += s * (scale * norm)}; stored to {@code lanes[16 i + part W]} for row slot {@code i}.
     * At 16 lanes one shift serves two planes ({@link CodeTable#upperCrumb}).
     */
    private void crumbs(Activation a, CodeTable t, int r0, int r1, int r2, int r3, int part, float[] lanes) {
        float[] x = a.x;
        int chunksPerGroup = group / CodeLayout.CHUNK_CODES_2BIT;
        long b0 = (long) r0 * rowBytes, b1 = (long) r1 * rowBytes, b2 = (long) r2 * rowBytes, b3 = (long) r3 * rowBytes;
        FloatVector acc0 = FloatVector.zero(F), acc1 = acc0, acc2 = acc0, acc3 = acc0;
        int c = 0;
        for (int g = 0; g < groups; g++) {
            FloatVector s0 = FloatVector.zero(F), s1 = s0, s2 = s0, s3 = s0;
            for (int k = 0; k < chunksPerGroup; k++, c++) {
                long co = (long) c * CodeLayout.CHUNK_BYTES;
                IntVector p0 = ByteLanes.codes(codes, b0 + co, part), p1 = ByteLanes.codes(codes, b1 + co, part),
                        p2 = ByteLanes.codes(codes, b2 + co, part), p3 = ByteLanes.codes(codes, b3 + co, part);
                int xo = c * CodeLayout.CHUNK_CODES_2BIT + part * W;
                for (int shift = 0; shift < 8; shift += CodeTable.UPPER_CRUMBS ? 4 : 2) {
                    IntVector n0 = plane(p0, shift), n1 = plane(p1, shift), n2 = plane(p2, shift), n3 = plane(p3, shift);
                    FloatVector xv = FloatVector.fromArray(F, x, xo);
                    s0 = t.crumb(n0).fma(xv, s0);
                    s1 = t.crumb(n1).fma(xv, s1);
                    s2 = t.crumb(n2).fma(xv, s2);
                    s3 = t.crumb(n3).fma(xv, s3);
                    xo += CodeLayout.CHUNK_BYTES;
                    if (CodeTable.UPPER_CRUMBS) {
                        xv = FloatVector.fromArray(F, x, xo);
                        s0 = t.upperCrumb(n0).fma(xv, s0);
                        s1 = t.upperCrumb(n1).fma(xv, s1);
                        s2 = t.upperCrumb(n2).fma(xv, s2);
                        s3 = t.upperCrumb(n3).fma(xv, s3);
                        xo += CodeLayout.CHUNK_BYTES;
                    }
                }
            }
            float scale = a.scales[g];
            acc0 = s0.fma(FloatVector.broadcast(F, scale * norm(r0, g)), acc0);
            acc1 = s1.fma(FloatVector.broadcast(F, scale * norm(r1, g)), acc1);
            acc2 = s2.fma(FloatVector.broadcast(F, scale * norm(r2, g)), acc2);
            acc3 = s3.fma(FloatVector.broadcast(F, scale * norm(r3, g)), acc3);
        }
        store(acc0, acc1, acc2, acc3, part, lanes);
    }

    /**
     * {@link #crumbs} for a 4-bit matrix, two rows at a time ({@code ra, rb} into row slots {@code slot,
     * slot + 1}): two planes per chunk, each code's value from {@link CodeTable#nibble}. Two rows, not
     * four: at 4 lanes a 4-bit lookup is five vector operations, and four rows of them pass C2's
     * inlining budget.
     */
    private void nibbles(Activation a, CodeTable t, int ra, int rb, int slot, int part, float[] lanes) {
        float[] x = a.x;
        int chunksPerGroup = group / CodeLayout.CHUNK_CODES_4BIT;
        long b0 = (long) ra * rowBytes, b1 = (long) rb * rowBytes;
        FloatVector acc0 = FloatVector.zero(F), acc1 = acc0;
        int c = 0;
        for (int g = 0; g < groups; g++) {
            FloatVector s0 = FloatVector.zero(F), s1 = s0;
            for (int k = 0; k < chunksPerGroup; k++, c++) {
                long co = (long) c * CodeLayout.CHUNK_BYTES;
                IntVector p0 = ByteLanes.codes(codes, b0 + co, part), p1 = ByteLanes.codes(codes, b1 + co, part);
                int xo = c * CodeLayout.CHUNK_CODES_4BIT + part * W;
                for (int shift = 0; shift < 8; shift += 4, xo += CodeLayout.CHUNK_BYTES) {
                    FloatVector xv = FloatVector.fromArray(F, x, xo);
                    s0 = t.nibble(plane(p0, shift)).fma(xv, s0);
                    s1 = t.nibble(plane(p1, shift)).fma(xv, s1);
                }
            }
            float scale = a.scales[g];
            acc0 = s0.fma(FloatVector.broadcast(F, scale * norm(ra, g)), acc0);
            acc1 = s1.fma(FloatVector.broadcast(F, scale * norm(rb, g)), acc1);
        }
        storePair(acc0, acc1, slot, part, lanes);
    }

    /** The int8 codebook values of row {@code row} of a 4-bit matrix into {@code values8[at, at + colsPad)}, plane order like the codes. */
    private void decodeRow8(int row, byte[] values8, int at) {
        long base = (long) row * rowBytes;
        for (int co = 0; co < rowBytes; co += CodeLayout.CHUNK_BYTES, at += CodeLayout.CHUNK_CODES_4BIT) {
            ByteVector n = ByteVector.fromMemorySegment(CHUNK, codes, base + co, ByteOrder.LITTLE_ENDIAN);
            n.selectFrom(nibbleValues8).intoArray(values8, at);
            n.lanewise(VectorOperators.LSHR, 4).selectFrom(nibbleValues8).intoArray(values8, at + CodeLayout.CHUNK_BYTES);
        }
    }

    /**
     * {@link #nibbles} of an int8 matrix below 16 lanes on its decoded values ({@link #decodeRow8}):
     * lane {@code j} of part {@code p} accumulates {@code value * x} over the group's positions
     * {@code 16 i + p W + j}, the same products into the same lanes as {@link #nibbles}. The int8
     * products and their group sums are integers float32 holds exactly (see {@link Activation}), so the
     * bits are those of the direct kernel.
     */
    private void decodedNibbles(Activation a, byte[] values8, int ra, int rb, int slot, int part, float[] lanes) {
        float[] x = a.x;
        int va = slot * colsPad + part * W, vb = va + colsPad;
        FloatVector acc0 = FloatVector.zero(F), acc1 = acc0;
        int i = part * W;
        for (int g = 0; g < groups; g++) {
            FloatVector s0 = FloatVector.zero(F), s1 = s0;
            for (int end = i + group; i < end; i += Lanes.LOGICAL, va += Lanes.LOGICAL, vb += Lanes.LOGICAL) {
                FloatVector xv = FloatVector.fromArray(F, x, i);
                s0 = ByteLanes.signed(values8, va).fma(xv, s0);
                s1 = ByteLanes.signed(values8, vb).fma(xv, s1);
            }
            float scale = a.scales[g];
            acc0 = s0.fma(FloatVector.broadcast(F, scale * norm(ra, g)), acc0);
            acc1 = s1.fma(FloatVector.broadcast(F, scale * norm(rb, g)), acc1);
        }
        storePair(acc0, acc1, slot, part, lanes);
    }

    /** The lanes of rows {@code slot} and {@code slot + 1} of a block, part {@code part}. */
    private static void storePair(FloatVector acc0, FloatVector acc1, int slot, int part, float[] lanes) {
        int at = slot * Lanes.LOGICAL + part * W;
        acc0.intoArray(lanes, at);
        acc1.intoArray(lanes, at + Lanes.LOGICAL);
    }

    private static void store(FloatVector acc0, FloatVector acc1, FloatVector acc2, FloatVector acc3, int part, float[] lanes) {
        int at = part * W;
        acc0.intoArray(lanes, at);
        acc1.intoArray(lanes, at + Lanes.LOGICAL);
        acc2.intoArray(lanes, at + 2 * Lanes.LOGICAL);
        acc3.intoArray(lanes, at + 3 * Lanes.LOGICAL);
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
