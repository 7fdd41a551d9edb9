package dev.needlewb.engine.kernel;

import dev.needlewb.core.simd.VectorWidth;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The codes of a matrix regrouped for the int8 block kernel: blocks of {@link #ROWS} rows with the rows
 * in byte lanes. Byte {@code j} of every row of a block sits in 16 consecutive bytes, row {@code k} at
 * byte {@code 2k} and row {@code 8 + k} at byte {@code 2k + 1}, so that the even and odd bytes of a
 * 16-byte vector are rows 0-7 and 8-15 in order. A last partial block is padded with code 0, whose
 * results are never stored. The copy is the size of the codes.
 *
 * <p>Arithmetic: each nibble of a byte (two 2-bit codes, or one 4-bit code) selects, for all 16 rows at
 * once, one entry of its {@link NibbleTables} (one byte shuffle per byte table), so a vector instruction
 * serves 32 multiply-adds of 2-bit codes, or 16 of 4-bit codes, at 128 bits. The low and high bytes are
 * summed apart in int16 lanes over spans of at most {@link #SPAN_BYTES} bytes of codes (at most 128
 * lookups of at most 255: no overflow), then combined in int32 to the exact integer group sum
 * {@code S[row, g] = sum q8(v)[code] q8(x)}. Per row the groups then fold in order as one float32 chain
 * {@code acc = fma(S, scale_g * norm_g, acc)}, and the row's result is {@code acc * codebook scale}.
 * Integer sums are exact in any order, so the result is the same bits at every vector width and thread
 * split. The vectors are {@link VectorWidth#NARROWEST} (128 bits) at every width: the byte shuffle of one
 * 16-entry table is one instruction there on x86 (pshufb) and ARM (tbl), while a wider one crosses
 * 128-bit lanes.
 */
final class RowBlocks {
    /** Rows per block: one byte lane each (a power of two: row indices split by shifts). */
    static final int ROWS = 16;
    /** Bytes of codes summed in int16 before widening: 128 lookups (two per byte) of at most 255 stay below 2^15. */
    static final int SPAN_BYTES = 64;
    private static final VectorSpecies<Byte> B = ByteVector.SPECIES_PREFERRED.withShape(VectorWidth.NARROWEST);
    /** The short species of the kernel's sums, shared with {@link NibbleTables}' builder. */
    static final VectorSpecies<Short> S = ShortVector.SPECIES_PREFERRED.withShape(VectorWidth.NARROWEST);
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED.withShape(VectorWidth.NARROWEST);
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_PREFERRED.withShape(VectorWidth.NARROWEST);

    private final byte[] codes;
    private final int byteCols;
    private final int groupBytes;
    private final int groups;
    private final int spanBytes;

    private RowBlocks(byte[] codes, int byteCols, int groupBytes) {
        this.codes = codes;
        this.byteCols = byteCols;
        this.groupBytes = groupBytes;
        this.groups = byteCols / groupBytes;
        this.spanBytes = Math.min(groupBytes, SPAN_BYTES);
    }

    /**
     * Regroups {@code rows} rows of {@code rowBytes} bytes of {@code bits}-bit codes (row-major in
     * {@code rowMajor}) whose groups of {@code group} codes are a power of two bytes.
     */
    static RowBlocks of(MemorySegment rowMajor, int rows, int rowBytes, int group, int bits) {
        int blocks = Math.ceilDiv(rows, ROWS);
        byte[] codes = new byte[Math.multiplyExact(blocks * ROWS, rowBytes)];
        byte[] row = new byte[rowBytes];
        for (int r = 0; r < rows; r++) {
            MemorySegment.copy(rowMajor, ValueLayout.JAVA_BYTE, (long) r * rowBytes, row, 0, rowBytes);
            int base = (r / ROWS) * rowBytes * ROWS + lane(r % ROWS);
            for (int j = 0; j < rowBytes; j++) codes[base + j * ROWS] = row[j];
        }
        return new RowBlocks(codes, rowBytes, group * bits / 8);
    }

    /** The byte lane of row {@code k} of a block. */
    static int lane(int k) {
        return k < 8 ? 2 * k : 2 * (k - 8) + 1;
    }

    /**
     * The 16 rows of block {@code b} into {@code out[outOff, outOff + 16)}: {@code t} holds the
     * activation's nibble tables, {@code scales} its group scales, {@code norms} the block's group norms
     * ({@code [g][16]} from {@code normOff}, rows in order), {@code acc} 16 floats of scratch.
     */
    void block(int b, NibbleTables t, float[] scales, float[] norms, int normOff, float outScale, float[] acc, float[] out, int outOff) {
        byte[] low = t.low, high = t.high;
        java.util.Arrays.fill(acc, 0, ROWS, 0f);
        // Each span adds two biased high bytes per byte of codes to every row.
        IntVector bias = IntVector.broadcast(I, 256 * NibbleTables.HIGH_BIAS * (2 * spanBytes));
        int base = b * byteCols * ROWS, spansPerGroup = groupBytes / spanBytes;
        IntVector s0 = IntVector.zero(I), s1 = s0, s2 = s0, s3 = s0;
        for (int sp = 0, spans = groups * spansPerGroup; sp < spans; sp++) {
            ShortVector lowEven = ShortVector.zero(S), lowOdd = lowEven, highEven = lowEven, highOdd = lowEven;
            for (int j = sp * spanBytes, end = j + spanBytes; j < end; j++) {
                ByteVector c = ByteVector.fromArray(B, codes, base + j * ROWS);
                ByteVector first = c.and((byte) 0x0F);
                ByteVector second = c.reinterpretAsShorts().lanewise(VectorOperators.LSHR, 4).reinterpretAsBytes().and((byte) 0x0F);
                int table = 32 * j;
                ShortVector la = first.selectFrom(ByteVector.fromArray(B, low, table)).reinterpretAsShorts();
                ShortVector lb = second.selectFrom(ByteVector.fromArray(B, low, table + 16)).reinterpretAsShorts();
                ShortVector ha = first.selectFrom(ByteVector.fromArray(B, high, table)).reinterpretAsShorts();
                ShortVector hb = second.selectFrom(ByteVector.fromArray(B, high, table + 16)).reinterpretAsShorts();
                lowEven = lowEven.add(la.and((short) 0xFF)).add(lb.and((short) 0xFF));
                lowOdd = lowOdd.add(la.lanewise(VectorOperators.LSHR, 8)).add(lb.lanewise(VectorOperators.LSHR, 8));
                highEven = highEven.add(ha.and((short) 0xFF)).add(hb.and((short) 0xFF));
                highOdd = highOdd.add(ha.lanewise(VectorOperators.LSHR, 8)).add(hb.lanewise(VectorOperators.LSHR, 8));
            }
            // Even bytes are rows 0-7, odd bytes rows 8-15; each widening part is four rows.
            s0 = s0.add((IntVector) lowEven.convertShape(VectorOperators.S2I, I, 0))
                    .add(((IntVector) highEven.convertShape(VectorOperators.S2I, I, 0)).lanewise(VectorOperators.LSHL, 8)).sub(bias);
            s1 = s1.add((IntVector) lowEven.convertShape(VectorOperators.S2I, I, 1))
                    .add(((IntVector) highEven.convertShape(VectorOperators.S2I, I, 1)).lanewise(VectorOperators.LSHL, 8)).sub(bias);
            s2 = s2.add((IntVector) lowOdd.convertShape(VectorOperators.S2I, I, 0))
                    .add(((IntVector) highOdd.convertShape(VectorOperators.S2I, I, 0)).lanewise(VectorOperators.LSHL, 8)).sub(bias);
            s3 = s3.add((IntVector) lowOdd.convertShape(VectorOperators.S2I, I, 1))
                    .add(((IntVector) highOdd.convertShape(VectorOperators.S2I, I, 1)).lanewise(VectorOperators.LSHL, 8)).sub(bias);
            if ((sp + 1) % spansPerGroup != 0) continue;
            int g = sp / spansPerGroup;
            float scale = scales[g];
            int n = normOff + g * ROWS;
            ((FloatVector) s0.convert(VectorOperators.I2F, 0)).fma(FloatVector.fromArray(F, norms, n).mul(scale), FloatVector.fromArray(F, acc, 0))
                    .intoArray(acc, 0);
            ((FloatVector) s1.convert(VectorOperators.I2F, 0)).fma(FloatVector.fromArray(F, norms, n + 4).mul(scale), FloatVector.fromArray(F, acc, 4))
                    .intoArray(acc, 4);
            ((FloatVector) s2.convert(VectorOperators.I2F, 0)).fma(FloatVector.fromArray(F, norms, n + 8).mul(scale), FloatVector.fromArray(F, acc, 8))
                    .intoArray(acc, 8);
            ((FloatVector) s3.convert(VectorOperators.I2F, 0)).fma(FloatVector.fromArray(F, norms, n + 12).mul(scale), FloatVector.fromArray(F, acc, 12))
                    .intoArray(acc, 12);
            s0 = IntVector.zero(I);
            s1 = s0;
            s2 = s0;
            s3 = s0;
        }
        for (int i = 0; i < ROWS; i += 4) FloatVector.fromArray(F, acc, i).mul(outScale).intoArray(out, outOff + i);
    }

}
