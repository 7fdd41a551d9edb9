package dev.needlewb.converter.cact;

import static dev.needlewb.core.Refusals.malformed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.v2.V2Header;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.golden.Golden;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Each malformation of mini.cact gives one FormatException naming file, tensor and byte offset. */
class CactFileBadInputTest {
    private static final Path NAME = Path.of("bad.cact");
    private static final byte[] MINI;

    static {
        try {
            MINI = Files.readAllBytes(Golden.mini("mini.cact"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static long rec(int i) {
        return V2Header.recordOffset(i);
    }

    private static FormatException failure(ErrorKind kind, byte[] bytes) {
        FormatException e = malformed(kind, () -> CactFile.parse(MemorySegment.ofArray(bytes), NAME));
        assertThat(e.file()).isEqualTo(NAME);
        assertThat(e.getMessage()).doesNotContain("\n");
        return e;
    }

    private static FormatException failure(ErrorKind kind, Consumer<ByteBuffer> mutation) {
        byte[] copy = MINI.clone();
        mutation.accept(ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN));
        return failure(kind, copy);
    }

    private static void assertNames(FormatException e, int index, String name, long offset) {
        assertThat(e.tensorIndex()).isEqualTo(index);
        assertThat(e.tensorName()).isEqualTo(name);
        assertThat(e.offset()).isEqualTo(offset);
    }

    private static void assertAt(FormatException e, long offset) {
        assertThat(e.tensorIndex()).isEqualTo(FormatException.NO_TENSOR);
        assertThat(e.offset()).isEqualTo(offset);
    }

    @Test
    void truncatedFile() {
        assertNames(failure(ErrorKind.TRUNCATED, Arrays.copyOf(MINI, MINI.length - 100)), 110, "tokenizer", rec(110) + 20);
    }

    @Test
    void shorterThanTheHeader() {
        assertAt(failure(ErrorKind.TRUNCATED, Arrays.copyOf(MINI, 50)), 50);
    }

    @Test
    void shorterThanTheTag() {
        assertAt(failure(ErrorKind.TRUNCATED, Arrays.copyOf(MINI, 3)), 3);
    }

    @Test
    void wrongTag() {
        assertAt(failure(ErrorKind.BAD_TAG, b -> b.putInt(0, 0x12345678)), 0);
    }

    @Test
    void directoryPastTheEnd() {
        assertAt(failure(ErrorKind.BAD_HEADER_FIELD, b -> b.putInt(4, 100_000)), 4);
    }

    @Test
    void absurdNumTensorsAllocatesNothing() {
        assertAt(failure(ErrorKind.BAD_HEADER_FIELD, b -> b.putInt(4, -1)), 4);
    }

    @Test
    void codebookOfWrongLength() {
        assertAt(failure(ErrorKind.BAD_HEADER_FIELD, b -> b.putInt(8, 27)), 8);
    }

    @Test
    void inconsistentGeometry() {
        assertAt(failure(ErrorKind.BAD_HEADER_FIELD, b -> b.putInt(48, 256)), 48);
        assertAt(failure(ErrorKind.NONZERO_RESERVED, b -> b.putInt(100 + 8, 3)), 108);
    }

    @Test
    void unalignedOffset() {
        assertNames(failure(ErrorKind.MISALIGNED, b -> b.putLong((int) rec(5) + 20, b.getLong((int) rec(5) + 20) + 1)), 5, "layer00.q_norm", rec(5) + 20);
    }

    @Test
    void overlappingBlobs() {
        assertNames(failure(ErrorKind.OVERLAP, b -> b.putLong((int) rec(5) + 20, b.getLong((int) rec(4) + 20))), 5, "layer00.q_norm", rec(5) + 20);
    }

    @Test
    void nbytesDisagreeingWithShape() {
        assertNames(failure(ErrorKind.SHAPE_MISMATCH, b -> b.putLong((int) rec(12) + 28, 300)), 12, "layer00.d1", rec(12) + 28);
    }

    @Test
    void shapeProductOverflow() {
        FormatException e = failure(ErrorKind.TOO_LARGE, b -> {
            b.put((int) rec(1) + 1, (byte) 4);
            for (int i = 0; i < 4; i++) b.putInt((int) rec(1) + 4 + 4 * i, -1);
        });
        assertNames(e, 1, "layer00.norm_in", rec(1) + 4);
    }

    @Test
    void unknownDtype() {
        assertNames(failure(ErrorKind.UNSUPPORTED_DTYPE, b -> b.put((int) rec(2), (byte) 9)), 2, "layer00.q_proj", rec(2));
    }

    @Test
    void unknownBits() {
        assertNames(failure(ErrorKind.BAD_HEADER_FIELD, b -> b.putInt((int) rec(2) + 40, 7)), 2, "layer00.q_proj", rec(2) + 40);
    }

    @Test
    void mixedGroups() {
        assertNames(failure(ErrorKind.BAD_HEADER_FIELD, b -> b.putInt((int) rec(2) + 36, 64)), 2, "layer00.q_proj", rec(2) + 36);
    }

    @Test
    void wrongShape() {
        assertNames(failure(ErrorKind.SHAPE_MISMATCH, b -> b.putInt((int) rec(3) + 4, 65)), 3, "layer00.k_proj", rec(3) + 1);
    }

    @Test
    void nonZeroPadding() {
        // layer00.attn_gate (2 bytes at 56960) is followed by padding up to pre_hada at 57024
        assertNames(failure(ErrorKind.NONZERO_RESERVED, b -> b.put(56970, (byte) 1)), 11, "layer00.pre_hada", 56970);
    }

    @Test
    void trailingBytes() {
        assertAt(failure(ErrorKind.TRAILING_BYTES, Arrays.copyOf(MINI, MINI.length + 1)), 389286);
    }
}
