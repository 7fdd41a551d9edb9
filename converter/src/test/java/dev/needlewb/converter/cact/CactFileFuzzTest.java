package dev.needlewb.converter.cact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.needlewb.converter.v2.V2Header;
import dev.needlewb.core.FormatException;
import dev.needlewb.golden.Golden;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Seeded mutation fuzzing of mini.cact: whatever the bytes, {@link CactFile#parse} and the reads
 * after it either succeed or throw {@link FormatException}; nothing else escapes. One buffer is
 * mutated in place and restored after each case, so 100,000 cases stay cheap. When a mutated
 * file parses, every tensor whose blob or directory record the mutation touched is dequantized
 * (after a header or codebook change, a small CQ and an FP16 tensor stand for all) and the
 * tokenizer blob is read; untouched tensors are the unchanged golden ones ({@link CactFileGoldenTest}).
 */
class CactFileFuzzTest {
    private static final int CASES = 100_000;
    private static final long[] INTERESTING = {0, 1, -1, 2, 63, 64, 65, 128, 0x7FFF_FFFFL, 0x8000_0000L, 0xFFFF_FFFFL,
        0x1_0000_0000L, Long.MAX_VALUE, Long.MIN_VALUE, 389_286, 389_280, 1L << 40};

    @Test
    void onlyFormatExceptionsEscape() throws Exception {
        byte[] original = Files.readAllBytes(Golden.mini("mini.cact"));
        byte[] buf = original.clone();
        ByteBuffer le = ByteBuffer.wrap(buf).order(ByteOrder.LITTLE_ENDIAN);
        int directoryEnd = (int) V2Header.recordOffset(111);
        SplittableRandom rnd = new SplittableRandom(20_261_202);
        int parsed = 0;
        int rejected = 0;
        for (int c = 0; c < CASES; c++) {
            int length = buf.length;
            int from;
            int to;
            switch (rnd.nextInt(6)) {
                case 0 -> { // truncation
                    length = rnd.nextInt(buf.length);
                    from = length;
                    to = length;
                }
                case 1, 2 -> { // header field
                    from = 4 * rnd.nextInt(30);
                    to = from + 4;
                    le.putInt(from, (int) INTERESTING[rnd.nextInt(INTERESTING.length)]);
                }
                case 3 -> { // directory field
                    int rec = (int) V2Header.recordOffset(rnd.nextInt(111));
                    int[][] fields = {{0, 1}, {1, 1}, {2, 2}, {4, 4}, {8, 4}, {12, 4}, {16, 4}, {20, 8}, {28, 8}, {36, 4}, {40, 4}};
                    int[] f = fields[rnd.nextInt(fields.length)];
                    from = rec + f[0];
                    to = from + f[1];
                    long v = INTERESTING[rnd.nextInt(INTERESTING.length)];
                    for (int i = from; i < to; i++, v >>>= 8) buf[i] = (byte) v;
                }
                case 4 -> { // byte flips in header + directory
                    from = rnd.nextInt(directoryEnd);
                    to = Math.min(directoryEnd, from + 1 + rnd.nextInt(4));
                    for (int i = from; i < to; i++) buf[i] ^= (byte) (1 << rnd.nextInt(8));
                }
                default -> { // byte flips anywhere (mostly tensor data)
                    from = rnd.nextInt(buf.length);
                    to = Math.min(buf.length, from + 1 + rnd.nextInt(8));
                    for (int i = from; i < to; i++) buf[i] ^= (byte) (1 + rnd.nextInt(255));
                }
            }
            try {
                CactFile f = CactFile.parse(MemorySegment.ofArray(buf).asSlice(0, length), null);
                parsed++;
                for (TensorRecord r : f.tensors()) {
                    long rec = V2Header.recordOffset(r.index());
                    boolean touched = (from < rec + CactFormat.RECORD_BYTES && to > rec)
                            || (from < r.offset() + r.nbytes() && to > r.offset())
                            || (from < V2Header.DIRECTORY_OFFSET && (r.index() == 3 || r.index() == 1));
                    if (touched && r.dtype() != CactDType.RAW) f.dequantize(r.index());
                }
                if (f.tokenizerBlob().toArray(ValueLayout.JAVA_BYTE).length != f.tensor(f.numTensors() - 1).nbytes()) {
                    fail("tokenizer blob has the wrong size");
                }
            } catch (FormatException e) {
                rejected++;
                // plain check: an AssertJ assertion per case would dominate the loop
                if (e.getMessage().indexOf('\n') >= 0) fail("multi-line message: " + e.getMessage());
            } catch (Throwable t) {
                fail("case " + c + " (bytes " + from + ".." + to + ", length " + length + ") threw " + t, t);
            }
            System.arraycopy(original, from, buf, from, to - from);
        }
        assertThat(buf).isEqualTo(original);
        // both outcomes must be exercised for the loop to mean anything
        assertThat(parsed).isGreaterThan(CASES / 10);
        assertThat(rejected).isGreaterThan(CASES / 4);
    }
}
