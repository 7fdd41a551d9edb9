package dev.needlewb.converter.cq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.needlewb.converter.cq.codebook.Codebooks;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class CqNibblesTest {
    /** A [rows, cols] blob of random valid codes and random norms. */
    static CqBlob random(int rows, int cols, int group, int recordBits, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        long inPad = CqBlob.paddedCols(cols, group);
        byte[] idx = new byte[(int) (rows * inPad)];
        int levels = recordBits == CqPacking.TERNARY_RECORD_BITS ? 3 : 1 << recordBits;
        for (int i = 0; i < idx.length; i++) idx[i] = (byte) rnd.nextInt(levels);
        byte[] codes = CqPacking.pack(idx, recordBits);
        ByteBuffer blob = ByteBuffer.allocate((int) CqBlob.byteSize(rows, cols, recordBits, group)).order(ByteOrder.LITTLE_ENDIAN);
        blob.put(codes);
        while (blob.hasRemaining()) blob.putShort(Float.floatToFloat16((float) (0.1 + rnd.nextDouble())));
        return new CqBlob(rows, cols, group, recordBits, MemorySegment.ofArray(blob.array()));
    }

    @ParameterizedTest
    @CsvSource({"3, 128, 5, 300", "3, 64, 3, 96", "5, 128, 4, 160", "2, 64, 2, 200", "4, 128, 3, 130"})
    void theNibbleCopyDecodesToTheSameWeightsBitForBit(int recordBits, int group, int rows, int cols) throws Exception {
        CqBlob blob = random(rows, cols, group, recordBits, 11);
        float[] codebook = Codebooks.of(recordBits, group);
        CqBlob widened = new CqBlob(rows, cols, group, 4, MemorySegment.ofArray(CqNibbles.widen(blob)));
        float[] before = CqDequantizer.dequantize(blob, codebook);
        float[] after = CqDequantizer.dequantize(widened, CqNibbles.paddedCodebook(codebook));
        // Same codebook entry and norm per weight, and the same float32 Hadamard matmul: identical bits.
        assertThat(after).isEqualTo(before);
        assertThat(widened.norms().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE))
                .isEqualTo(blob.norms().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    }

    @Test
    void anInvalidTernaryCrumbIsNamedWithItsOffset() {
        CqBlob blob = random(2, 128, 128, CqPacking.TERNARY_RECORD_BITS, 5);
        byte[] bytes = blob.data().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        bytes[32 + 3] = (byte) 0b1000_0000; // row 1, byte 3: the crumb of column 15 is 2, no trit
        CqBlob bad = new CqBlob(2, 128, 128, CqPacking.TERNARY_RECORD_BITS, MemorySegment.ofArray(bytes));
        InvalidCodeException e = catchThrowableOfType(InvalidCodeException.class, () -> CqNibbles.widen(bad));
        assertThat(e.byteOffset()).isEqualTo(35);
        assertThat(e.getMessage()).contains("row 1, column 15");
    }
}
