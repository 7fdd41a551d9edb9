package dev.needlewb.converter.cq;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Dense float32 weights of a CQ blob, equal bit for bit to upstream {@code export.read_export}:
 * per group {@code w = (codebook[idx] * float32(norm)) @ H} with numpy's summation order
 * ({@link NumpyMatmulOrder}). Use the codebook stored in the file
 * ({@link CqCodebooks#fromHeader}) or, for ternary, {@link CqCodebooks#ternary}.
 */
public final class CqDequantizer {
    private static final ValueLayout.OfShort HALF = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private CqDequantizer() {}

    /**
     * Row-major {@code [rows, cols]} weights.
     *
     * @throws InvalidCodeException if a ternary crumb is 2 (no trit)
     * @throws IllegalArgumentException if the matrix does not fit one Java array or the codebook is too short
     */
    public static float[] dequantize(CqBlob blob, float[] codebook) throws InvalidCodeException {
        int group = blob.group();
        long total = Math.multiplyExact(blob.rows(), blob.cols());
        if (total > Integer.MAX_VALUE - 8 || blob.inPad() > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("[" + blob.rows() + ", " + blob.cols() + "] does not fit one Java array");
        }
        int levels = blob.recordBits() == CqPacking.TERNARY_RECORD_BITS ? 3 : 1 << blob.recordBits();
        if (codebook.length < levels) throw new IllegalArgumentException("codebook has " + codebook.length + " entries, needs " + levels);
        int cols = (int) blob.cols();
        int inPad = (int) blob.inPad();
        int groups = (int) blob.groupsPerRow();
        long rowBytes = blob.rowBytes();
        long normsOffset = blob.normsOffset();
        NumpyMatmulOrder[] orders = NumpyMatmulOrder.forRow(groups);
        HadamardMatmul matmul = new HadamardMatmul(group);
        ScaledCodebook scaledCodebook = new ScaledCodebook(codebook);
        byte[] packedRow = new byte[(int) rowBytes];
        byte[] idx = new byte[inPad];
        float[] norms = new float[groups];
        float[] scaled = new float[inPad];
        float[] rowOut = new float[inPad];
        float[] out = new float[(int) total];
        for (long r = 0; r < blob.rows(); r++) {
            MemorySegment.copy(blob.data(), ValueLayout.JAVA_BYTE, r * rowBytes, packedRow, 0, packedRow.length);
            int bad = CqPacking.unpackRow(packedRow, 0, inPad, blob.recordBits(), idx);
            if (bad >= 0) {
                throw new InvalidCodeException(r * rowBytes + bad / 4,
                        "ternary crumb 2 (no trit) at row " + r + ", column " + bad);
            }
            long normAt = normsOffset + 2 * r * groups;
            for (int g = 0; g < groups; g++) norms[g] = Float.float16ToFloat(blob.data().get(HALF, normAt + 2L * g));
            for (int g = 0; g < groups; g++) {
                int base = g * group;
                scaledCodebook.lookup(idx, base, group, norms[g], scaled, base);
                matmul.multiply(scaled, base, orders[g], rowOut, base);
            }
            System.arraycopy(rowOut, 0, out, (int) (r * cols), cols);
        }
        return out;
    }
}
