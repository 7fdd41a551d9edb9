package dev.needlewb.converter.cact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.needlewb.converter.v2.V2Header;
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

    private static FormatException failure(byte[] bytes) {
        FormatException e = catchThrowableOfType(FormatException.class, () -> CactFile.parse(MemorySegment.ofArray(bytes), NAME));
        assertThat(e).as("expected a FormatException").isNotNull();
        assertThat(e.getMessage()).doesNotContain("\n").startsWith("bad.cact: ");
        return e;
    }

    private static FormatException failure(Consumer<ByteBuffer> mutation) {
        byte[] copy = MINI.clone();
        mutation.accept(ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN));
        return failure(copy);
    }

    private static void assertNames(FormatException e, int index, String name, long offset, String problem) {
        assertThat(e.getMessage()).startsWith("bad.cact: tensor " + index + " (" + name + ") at byte " + offset + ": ").contains(problem);
        assertThat(e.tensorIndex()).isEqualTo(index);
        assertThat(e.offset()).isEqualTo(offset);
    }

    @Test
    void truncatedFile() {
        FormatException e = failure(Arrays.copyOf(MINI, MINI.length - 100));
        assertNames(e, 110, "tokenizer", rec(110) + 20, "runs past the end of the file (389186 bytes");
    }

    @Test
    void shorterThanTheHeader() {
        assertThat(failure(Arrays.copyOf(MINI, 50)).getMessage()).isEqualTo("bad.cact: at byte 50: file is 50 bytes, shorter than the 120-byte header (truncated?)");
    }

    @Test
    void shorterThanTheTag() {
        assertThat(failure(Arrays.copyOf(MINI, 3)).getMessage()).isEqualTo("bad.cact: at byte 3: file is 3 bytes, shorter than the 4-byte .cact tag (truncated?)");
    }

    @Test
    void wrongTag() {
        assertThat(failure(b -> b.putInt(0, 0x12345678)).getMessage()).isEqualTo("bad.cact: at byte 0: tag 0x12345678 is not a .cact tag"
                + " (known: 0x05E12A83 (Needle 2), 0x05E12A82 (Needle 2, legacy header), 0x05E12A84 (Needle 3))");
    }

    @Test
    void directoryPastTheEnd() {
        assertThat(failure(b -> b.putInt(4, 100_000)).getMessage()).isEqualTo(
                "bad.cact: at byte 4: num_tensors 100000 needs a directory up to byte 4400232 but the file has 389286 bytes");
    }

    @Test
    void absurdNumTensorsAllocatesNothing() {
        assertThat(failure(b -> b.putInt(4, -1)).getMessage()).contains("num_tensors 4294967295 needs a directory up to byte 188978561212");
    }

    @Test
    void codebookOfWrongLength() {
        assertThat(failure(b -> b.putInt(8, 27)).getMessage())
                .isEqualTo("bad.cact: at byte 8: codebook_len 27 must be 28 (cb2[4] | cb3[8] | cb4[16])");
    }

    @Test
    void inconsistentGeometry() {
        assertThat(failure(b -> b.putInt(48, 256)).getMessage())
                .isEqualTo("bad.cact: at byte 48: header geometry: hada_n 256 must be 128, the smallest power of two >= d_model 128");
        assertThat(failure(b -> b.putInt(100 + 8, 3)).getMessage()).contains("at byte 108: header geometry: unused engram sites slot 2");
    }

    @Test
    void unalignedOffset() {
        FormatException e = failure(b -> b.putLong((int) rec(5) + 20, b.getLong((int) rec(5) + 20) + 1));
        assertNames(e, 5, "layer00.q_norm", rec(5) + 20, "offset 47873 is not 64-byte aligned");
    }

    @Test
    void overlappingBlobs() {
        FormatException e = failure(b -> b.putLong((int) rec(5) + 20, b.getLong((int) rec(4) + 20)));
        assertNames(e, 5, "layer00.q_norm", rec(5) + 20, "offset 45696 overlaps the previous blob, which ends at 47872");
    }

    @Test
    void nbytesDisagreeingWithShape() {
        FormatException e = failure(b -> b.putLong((int) rec(12) + 28, 300));
        assertNames(e, 12, "layer00.d1", rec(12) + 28, "nbytes 300, but FP16[128] needs 256");
    }

    @Test
    void shapeProductOverflow() {
        FormatException e = failure(b -> {
            b.put((int) rec(1) + 1, (byte) 4);
            for (int i = 0; i < 4; i++) b.putInt((int) rec(1) + 4 + 4 * i, -1);
        });
        assertNames(e, 1, "layer00.norm_in", rec(1) + 4, "overflows");
    }

    @Test
    void unknownDtype() {
        assertNames(failure(b -> b.put((int) rec(2), (byte) 9)), 2, "layer00.q_proj", rec(2), "unknown dtype 9");
    }

    @Test
    void unknownBits() {
        assertNames(failure(b -> b.putInt((int) rec(2) + 40, 7)), 2, "layer00.q_proj", rec(2) + 40, "unsupported CQ bits 7");
    }

    @Test
    void mixedGroups() {
        assertNames(failure(b -> b.putInt((int) rec(2) + 36, 64)), 2, "layer00.q_proj", rec(2) + 36, "differs from the file's group 128");
    }

    @Test
    void wrongShape() {
        assertNames(failure(b -> b.putInt((int) rec(3) + 4, 65)), 3, "layer00.k_proj", rec(3) + 1, "shape [65, 128], expected [64, 128]");
    }

    @Test
    void nonZeroPadding() {
        // layer00.attn_gate (2 bytes at 56960) is followed by padding up to pre_hada at 57024
        assertNames(failure(b -> b.put(56970, (byte) 1)), 11, "layer00.pre_hada", 56970, "padding byte before the blob is not zero");
    }

    @Test
    void trailingBytes() {
        assertThat(failure(Arrays.copyOf(MINI, MINI.length + 1)).getMessage())
                .isEqualTo("bad.cact: at byte 389286: file has 1 bytes after the last blob (canonical files end at the last blob)");
    }
}
