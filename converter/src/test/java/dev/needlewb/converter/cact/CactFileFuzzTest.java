package dev.needlewb.converter.cact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.needlewb.core.FormatException;
import dev.needlewb.golden.Golden;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Seeded mutation fuzzing of upstream's exports of both generations (Needle 2 mini.cact, Needle 3
 * mini3.cact), of their structure and of its values (a seventh of the
 * cases write a float16 of every class, NaN and infinities included, into a stored value or CQ
 * norm): whatever the bytes, {@link CactFile#parse} and the reads after it either succeed or
 * throw {@link FormatException}; nothing else escapes, and the non-finite values the reader
 * reports are exactly those the dequantized weights hold. One buffer is
 * mutated in place and restored after each case, so 100,000 cases stay cheap. When a mutated
 * file parses, every tensor whose blob or directory record the mutation touched is dequantized
 * (after a header or codebook change, a small CQ and an FP16 tensor stand for all) and the
 * tokenizer blob is read; untouched tensors are the unchanged golden ones ({@link CactFileGoldenTest}).
 */
class CactFileFuzzTest {
    private static final int CASES = 100_000;
    private static final long[] INTERESTING = {0, 1, -1, 2, 63, 64, 65, 128, 0x7FFF_FFFFL, 0x8000_0000L, 0xFFFF_FFFFL,
        0x1_0000_0000L, Long.MAX_VALUE, Long.MIN_VALUE, 389_286, 389_280, 1L << 40};

    /** Float16 values by class: NaNs (quiet, signalling, negative), infinities, the largest, a subnormal, -0, 1. */
    private static final short[] HALVES = {(short) 0x7E00, (short) 0x7C01, (short) 0xFE00, (short) 0x7C00, (short) 0xFC00,
        (short) 0x7BFF, (short) 0xFBFF, 0x0001, (short) 0x8000, 0x3C00};

    /** Float32 values a permutation must not hold (NaN, infinity, fractions, out of range, negative) or may (a repeat). */
    private static final float[] FLOATS = {Float.NaN, Float.POSITIVE_INFINITY, 1.5f, 128f, 1e9f, -1f, -0f, 0f, 5f};

    /** The byte offset of every float32 a file stores (Needle 3's permutations). */
    private static int[] floatSlots(CactFile f) {
        List<Integer> at = new ArrayList<>();
        for (TensorRecord r : f.tensors()) {
            if (r.dtype() != CactDType.FP32) continue;
            for (long p = r.offset(); p < r.offset() + r.nbytes(); p += 4) at.add((int) p);
        }
        return at.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The byte offset of every float16 mini stores: FP16 values and CQ group norms. */
    private static int[] halfSlots(CactFile f) {
        List<Integer> at = new ArrayList<>();
        for (TensorRecord r : f.tensors()) {
            if (r.dtype() == CactDType.RAW || r.name().equals("heads.manifest")) continue;
            long start = r.dtype() == CactDType.CQ ? r.offset() + f.cqBlob(r.index()).normsOffset() : r.offset();
            for (long p = start; p < r.offset() + r.nbytes(); p += 2) at.add((int) p);
        }
        return at.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * What the reader says of a tensor's values agrees with the values themselves: an FP16/FP32
     * tensor holds as many non-finite values as {@link CactFile#nonFinite} counts, and a CQ matrix
     * dequantizes to a non-finite value exactly when one of its norms is not finite (the header
     * codebook is finite, so a finite norm gives finite weights).
     */
    private static void checkValues(CactFile f, TensorRecord r, NonFiniteTensor found) throws FormatException {
        float[] values = f.dequantize(r.index());
        long bad = 0;
        for (float v : values) if (!Float.isFinite(v)) bad++;
        if (r.dtype() == CactDType.CQ) {
            if ((bad > 0) != (found != null)) fail(r.name() + ": " + bad + " non-finite weights, norms reported " + found);
        } else if (bad != (found == null ? 0 : found.count().count())) {
            fail(r.name() + ": " + bad + " non-finite values, reported " + found);
        }
    }

    @Test
    void onlyFormatExceptionsEscapeNeedle2() throws Exception {
        fuzz(Golden.mini("mini.cact"), 20_261_202);
    }

    @Test
    void onlyFormatExceptionsEscapeNeedle3() throws Exception {
        fuzz(Golden.v3mini("mini3.cact"), 20_261_207);
    }

    private static void fuzz(Path golden, long seed) throws Exception {
        byte[] original = Files.readAllBytes(golden);
        byte[] buf = original.clone();
        ByteBuffer le = ByteBuffer.wrap(buf).order(ByteOrder.LITTLE_ENDIAN);
        CactFile clean = CactFile.parse(MemorySegment.ofArray(original), null);
        int headerBytes = clean.generation().header().headerBytes();
        int records = clean.numTensors();
        int directoryEnd = (int) CactFormat.recordOffset(headerBytes, records);
        SplittableRandom rnd = new SplittableRandom(seed);
        int[] halfSlots = halfSlots(clean);
        int[] floatSlots = floatSlots(clean);
        int parsed = 0;
        int rejected = 0;
        for (int c = 0; c < CASES; c++) {
            int length = buf.length;
            int from;
            int to;
            switch (rnd.nextInt(floatSlots.length > 0 ? 8 : 7)) {
                case 0 -> { // truncation
                    length = rnd.nextInt(buf.length);
                    from = length;
                    to = length;
                }
                case 1, 2 -> { // header field
                    from = 4 * rnd.nextInt(headerBytes / 4);
                    to = from + 4;
                    le.putInt(from, (int) INTERESTING[rnd.nextInt(INTERESTING.length)]);
                }
                case 3 -> { // directory field
                    int rec = (int) CactFormat.recordOffset(headerBytes, rnd.nextInt(records));
                    int[][] fields = {{0, 1}, {1, 1}, {2, 2}, {4, 4}, {8, 4}, {12, 4}, {16, 4}, {20, 8}, {28, 8}, {36, 4}, {40, 4}};
                    int[] f = fields[rnd.nextInt(fields.length)];
                    from = rec + f[0];
                    to = from + f[1];
                    long v = INTERESTING[rnd.nextInt(INTERESTING.length)];
                    for (int i = from; i < to; i++, v >>>= 8) buf[i] = (byte) v;
                }
                case 4 -> { // a float16 value in an FP16 tensor or a CQ matrix's norms: what the weights hold
                    from = halfSlots[rnd.nextInt(halfSlots.length)];
                    to = from + 2;
                    le.putShort(from, HALVES[rnd.nextInt(HALVES.length)]);
                }
                case 5 -> { // byte flips in header + directory
                    from = rnd.nextInt(directoryEnd);
                    to = Math.min(directoryEnd, from + 1 + rnd.nextInt(4));
                    for (int i = from; i < to; i++) buf[i] ^= (byte) (1 << rnd.nextInt(8));
                }
                case 7 -> { // a float32 in a permutation
                    from = floatSlots[rnd.nextInt(floatSlots.length)];
                    to = from + 4;
                    le.putFloat(from, FLOATS[rnd.nextInt(FLOATS.length)]);
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
                Map<Integer, NonFiniteTensor> nonFinite = new HashMap<>();
                for (NonFiniteTensor t : f.nonFinite()) nonFinite.put(t.index(), t);
                for (TensorRecord r : f.tensors()) {
                    long rec = CactFormat.recordOffset(headerBytes, r.index());
                    boolean touched = (from < rec + CactFormat.RECORD_BYTES && to > rec)
                            || (from < r.offset() + r.nbytes() && to > r.offset())
                            || (from < CactFormat.directoryOffset(headerBytes) && (r.index() == 3 || r.index() == 1));
                    if (touched && r.dtype() != CactDType.RAW) checkValues(f, r, nonFinite.get(r.index()));
                }
                if (f.tokenizerBlob().toArray(ValueLayout.JAVA_BYTE).length != f.tensor(f.numTensors() - 1).nbytes()) {
                    fail("tokenizer blob has the wrong size");
                }
                TensorRecord tok = f.tensor(f.numTensors() - 1);
                boolean tokenizerTouched = from < CactFormat.directoryOffset(headerBytes) || (from < tok.offset() + tok.nbytes() && to > tok.offset());
                try {
                    if (tokenizerTouched) f.tokenizerVocab();
                } catch (FormatException tokenizerRefused) {
                    // a damaged tokenizer is refused like any other part
                    if (tokenizerRefused.tensorIndex() != f.numTensors() - 1) fail("tokenizer error names tensor " + tokenizerRefused.tensorIndex());
                }
            } catch (FormatException e) {
                rejected++;
                // plain check: an AssertJ assertion per case would dominate the loop
                if (e.getMessage().indexOf('\n') >= 0) fail("multi-line message: " + e.getMessage());
                if (e.offset() == FormatException.NO_OFFSET && e.tensorIndex() == FormatException.NO_TENSOR) {
                    fail("a refusal names neither a byte nor a tensor: " + e.getMessage());
                }
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
