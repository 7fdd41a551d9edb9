package dev.needlewb.converter.torch;

import static dev.needlewb.converter.pickle.PickleOp.*;
import static dev.needlewb.core.Refusals.malformed;
import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.finite.NonFiniteCount;
import dev.needlewb.converter.pickle.PickleEmitter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Our reader and writer on their own: round trip, and refusals of hostile or broken files. */
class TorchStateDictBadInputTest {
    @TempDir
    Path dir;

    private static Map<String, NpyArray> small() {
        Map<String, NpyArray> m = new LinkedHashMap<>();
        m.put("w", NpyArray.ofFloats(new int[] {2, 3}, new float[] {1, 2, 3, 4, 5, 6}));
        m.put("b", NpyArray.ofDoubles(new int[] {2}, new double[] {-1, 0.5}));
        return m;
    }

    @Test
    void whatWeWriteReadsBackBitExact() throws Exception {
        Map<String, NpyArray> tensors = TorchStateDictTorchTest.everyDtype();
        Path pt = dir.resolve("a.pt");
        TorchStateDict.write(tensors, pt);
        Map<String, NpyArray> back = TorchStateDict.read(pt);
        assertThat(back.keySet()).containsExactlyElementsOf(tensors.keySet());
        for (var e : tensors.entrySet()) {
            assertThat(back.get(e.getKey()).descr()).isEqualTo(e.getValue().descr());
            assertThat(back.get(e.getKey()).shape()).isEqualTo(e.getValue().shape());
            assertThat(back.get(e.getKey()).data()).as(e.getKey()).isEqualTo(e.getValue().data());
        }
    }

    @Test
    void refusedWritesLeaveNothingBehind() throws Exception {
        Path pt = dir.resolve("u.pt");
        Map<String, NpyArray> unsigned = Map.of("x", new NpyArray("<u4", new int[] {1}, new byte[4]));
        refused(ErrorKind.UNSUPPORTED_DTYPE, () -> TorchStateDict.write(unsigned, pt));
        Path input = dir.resolve("in.pt");
        TorchStateDict.write(small(), input);
        byte[] before = Files.readAllBytes(input);
        refused(ErrorKind.OUTPUT_CONFLICT, () -> TorchStateDict.write(small(), input, input));
        assertThat(Files.readAllBytes(input)).isEqualTo(before);
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("in.pt");
        }
    }

    /** A zip of the given entries (names as given: the writer does not validate). */
    private Path zip(String file, Map<String, byte[]> entries) throws IOException {
        Path p = dir.resolve(file);
        Files.write(p, zipBytes(entries));
        return p;
    }

    private static byte[] zipBytes(Map<String, byte[]> entries) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TorchZipWriter w = new TorchZipWriter(out);
        for (var e : entries.entrySet()) w.add(e.getKey(), e.getValue());
        w.finish();
        return out.toByteArray();
    }

    private Path withPickle(String file, byte[] pickle) throws IOException {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        entries.put("archive/data.pkl", pickle);
        entries.put("archive/data/0", new byte[24]);
        entries.put("archive/version", "3\n".getBytes(StandardCharsets.US_ASCII));
        return zip(file, entries);
    }

    @Test
    void picklesNamingOtherGlobalsAreRefusedBeforeAnythingRuns() throws Exception {
        byte[] system = "\u0080\u0002cos\nsystem\nX\u0002\u0000\u0000\u0000ls\u0085R.".getBytes(StandardCharsets.ISO_8859_1);
        Path evil = withPickle("evil.pt", system);
        FormatException system0 = malformed(ErrorKind.UNSAFE_PICKLE_GLOBAL, () -> TorchStateDict.read(evil));
        assertThat(system0.file()).isEqualTo(Path.of(evil + ":archive/data.pkl"));
        assertThat(system0.offset()).isEqualTo(2);
        byte[] eval = "\u0080\u0004\u008c\u0008builtins\u008c\u0004eval\u0093\u008c\u00011\u0085R.".getBytes(StandardCharsets.ISO_8859_1);
        Path evil2 = withPickle("evil2.pt", eval);
        assertThat(malformed(ErrorKind.UNSAFE_PICKLE_GLOBAL, () -> TorchStateDict.read(evil2)).offset()).isEqualTo(18);
        byte[] notTensor = "\u0080\u0002}X\u0001\u0000\u0000\u0000aK\u0001s.".getBytes(StandardCharsets.ISO_8859_1);
        Path number = withPickle("number.pt", notTensor);
        assertThat(malformed(ErrorKind.BAD_PICKLE, () -> TorchStateDict.read(number)))
                .extracting(FormatException::tensorIndex, FormatException::tensorName).containsExactly(0, "a");
    }

    @Test
    void entryNamesOutsideOneFolderAreRefused() throws Exception {
        byte[] pkl = "\u0080\u0002}.".getBytes(StandardCharsets.ISO_8859_1);
        List<String> names = List.of("archive/../../etc/passwd", "/archive/data.pkl", "archive\\data.pkl", "C:/archive/data.pkl",
                "data.pkl", "other/data.pkl");
        int i = 0;
        for (String name : names) {
            Map<String, byte[]> entries = new LinkedHashMap<>();
            entries.put("archive/version", "3\n".getBytes(StandardCharsets.US_ASCII));
            entries.put(name, pkl);
            Path p = zip("names" + i++ + ".pt", entries);
            assertThat(malformed(ErrorKind.BAD_ARCHIVE, () -> TorchStateDict.read(p)).file()).as(name).isEqualTo(p);
        }
    }

    /** Offset of the central-directory record of the entry named {@code name}. */
    private static int central(byte[] zip, String name) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        outer:
        for (int i = 0; i + 46 + n.length <= zip.length; i++) {
            if (le(zip, i, 4) != 0x02014b50L || le(zip, i + 28, 2) != n.length) continue;
            for (int j = 0; j < n.length; j++) if (zip[i + 46 + j] != n[j]) continue outer;
            return i;
        }
        throw new AssertionError("no central record for " + name);
    }

    private static long le(byte[] b, int at, int width) {
        long v = 0;
        for (int i = width - 1; i >= 0; i--) v = v << 8 | (b[at + i] & 0xFF);
        return v;
    }

    private static void put(byte[] b, int at, int width, long v) {
        for (int i = 0; i < width; i++) b[at + i] = (byte) (v >>> (8 * i));
    }

    private Path patched(String file, java.util.function.Consumer<byte[]> patch) throws Exception {
        Path good = dir.resolve("good.pt");
        TorchStateDict.write(small(), good);
        byte[] bytes = Files.readAllBytes(good);
        patch.accept(bytes);
        Path p = dir.resolve(file);
        Files.write(p, bytes);
        return p;
    }

    @Test
    void absurdSizesAndMethodsInHeadersAreRefusedBeforeAllocating() throws Exception {
        Path hugeEntry = patched("huge.pt", b -> {
            int c = central(b, "archive/data/0");
            put(b, c + 20, 4, 0xFFFFFFF0L);
            put(b, c + 24, 4, 0xFFFFFFF0L);
        });
        malformed(ErrorKind.BAD_OFFSET, () -> TorchStateDict.read(hugeEntry));
        Path zipBomb = patched("bomb.pt", b -> {
            int c = central(b, "archive/data/0");
            put(b, c + 10, 2, 8);
            put(b, c + 24, 4, 0x7FFFFFF0L);
        });
        malformed(ErrorKind.TOO_LARGE, () -> TorchStateDict.read(zipBomb));
        Path localExtra = patched("extra.pt", b -> put(b, 28, 2, 0xFFFF));
        assertThat(malformed(ErrorKind.BAD_OFFSET, () -> TorchStateDict.read(localExtra)).offset()).isEqualTo(0);
        Path directory = patched("cen.pt", b -> put(b, b.length - 22 + 12, 4, 0x7FFFFFFFL));
        malformed(ErrorKind.BAD_OFFSET, () -> TorchStateDict.read(directory));
        Path bzip2 = patched("bzip2.pt", b -> put(b, central(b, "archive/data.pkl") + 10, 2, 12));
        malformed(ErrorKind.UNSUPPORTED, () -> TorchStateDict.read(bzip2));
        Path flipped = patched("crc.pt", b -> b[b.length / 2] ^= 1);
        assertThatThrownBy(() -> TorchStateDict.read(flipped)).isInstanceOf(FormatException.class);
    }

    /** A state dict pickle of one float tensor {@code t} viewing storage "0" of {@code numel} floats. */
    private static byte[] viewPickle(long numel, long offset, long[] size, long[] stride) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PickleEmitter p = new PickleEmitter(out, 2);
        p.proto();
        p.op(EMPTY_DICT);
        p.writeString("t");
        p.global("torch._utils", "_rebuild_tensor_v2");
        p.op(MARK);
        p.op(MARK);
        p.writeString("storage");
        p.global("torch", "FloatStorage");
        p.writeString("0");
        p.writeString("cpu");
        p.writeLong(numel);
        p.op(TUPLE);
        p.op(BINPERSID);
        p.writeLong(offset);
        for (long[] dims : new long[][] {size, stride}) {
            p.op(MARK);
            for (long d : dims) p.writeLong(d);
            p.op(TUPLE);
        }
        p.op(NEWFALSE);
        p.op(EMPTY_DICT);
        p.op(TUPLE);
        p.op(REDUCE);
        p.op(SETITEM);
        p.op(STOP);
        return out.toByteArray();
    }

    @Test
    void viewsAreCheckedAgainstTheirStorage() throws Exception {
        // storage "0" holds 24 bytes = 6 floats
        Path ok = withPickle("ok.pt", viewPickle(6, 1, new long[] {2, 2}, new long[] {1, 2}));
        assertThat(TorchStateDict.read(ok).get("t").shape()).containsExactly(2, 2);
        Path past = withPickle("past.pt", viewPickle(6, 2, new long[] {2, 2}, new long[] {3, 1}));
        assertThat(malformed(ErrorKind.SHAPE_MISMATCH, () -> TorchStateDict.read(past)))
                .extracting(FormatException::tensorIndex, FormatException::tensorName).containsExactly(0, "t");
        Path overflow = withPickle("overflow.pt", viewPickle(6, 0, new long[] {3, 2}, new long[] {Long.MAX_VALUE / 2 + 7, 1}));
        malformed(ErrorKind.SHAPE_MISMATCH, () -> TorchStateDict.read(overflow));
        Path broadcast = withPickle("broadcast.pt", viewPickle(6, 0, new long[] {1000, 6}, new long[] {0, 1}));
        malformed(ErrorKind.SHAPE_MISMATCH, () -> TorchStateDict.read(broadcast));
        // no element, so it fits any storage: its sizes near and past 2^31 must still be refused or read, never wrap
        Path empty = withPickle("empty.pt", viewPickle(6, 0, new long[] {0, (1L << 31) + 5}, new long[] {1, 1}));
        assertThat(malformed(ErrorKind.TOO_LARGE, () -> TorchStateDict.read(empty)))
                .extracting(FormatException::tensorIndex, FormatException::tensorName).containsExactly(0, "t");
        Path edge = withPickle("edge.pt", viewPickle(6, 0, new long[] {0, Integer.MAX_VALUE}, new long[] {1, 1}));
        assertThat(TorchStateDict.read(edge).get("t").shape()).containsExactly(0, Integer.MAX_VALUE);
        Path numel = withPickle("numel.pt", viewPickle(1L << 40, 0, new long[] {1}, new long[] {1}));
        assertThat(malformed(ErrorKind.SHAPE_MISMATCH, () -> TorchStateDict.read(numel)))
                .extracting(FormatException::tensorIndex, FormatException::tensorName).containsExactly(0, "t");
    }

    @Test
    void everyTruncationIsAFormatException() throws Exception {
        Path good = dir.resolve("t.pt");
        TorchStateDict.write(small(), good);
        byte[] bytes = Files.readAllBytes(good);
        Path cut = Path.of("cut.pt");
        for (int n = 0; n < bytes.length; n++) {
            try {
                TorchStateDict.read(cut, new ByteArrayChannel(java.util.Arrays.copyOf(bytes, n)));
                fail("a file cut to " + n + " of " + bytes.length + " bytes was accepted");
            } catch (FormatException e) {
                assertThat(e.file()).isEqualTo(cut);
                assertThat(e.getMessage()).doesNotContain("\n"); // one line, whatever the cut
            }
        }
        // and a truncated data.pkl inside an intact zip (valid CRC): the pickle scanner's refusal
        Map<String, NpyArray> tensors = small();
        byte[] pickle = pickleOf(dir.resolve("p.pt"), tensors);
        for (int n = 0; n < pickle.length; n++) {
            Map<String, byte[]> entries = new LinkedHashMap<>();
            entries.put("archive/data.pkl", java.util.Arrays.copyOf(pickle, n));
            entries.put("archive/data/0", tensors.get("w").data());
            entries.put("archive/data/1", tensors.get("b").data());
            try {
                TorchStateDict.read(cut, new ByteArrayChannel(zipBytes(entries)));
                fail("data.pkl cut to " + n + " of " + pickle.length + " bytes was accepted");
            } catch (FormatException e) {
                assertThat(e.file()).isEqualTo(Path.of(cut + ":archive/data.pkl"));
                assertThat(e.getMessage()).doesNotContain("\n");
            }
        }
    }

    @Test
    void seededMutationsOnlyEverThrowFormatOrWorkbenchExceptions() throws Exception {
        Path good = dir.resolve("f.pt");
        TorchStateDict.write(TorchStateDictTorchTest.everyDtype(), good);
        byte[] file = Files.readAllBytes(good);
        Map<String, NpyArray> tensors = small();
        // half the mutations hit the pickle alone, re-zipped with a valid CRC, so they reach the scanner
        byte[] pickle = pickleOf(dir.resolve("p.pt"), tensors);
        Random random = new Random(20261202);
        Path name = Path.of("mutant.pt");
        int accepted = 0;
        int mutations = 6000;
        for (int i = 0; i < mutations; i++) {
            boolean wholeFile = i % 2 == 0;
            byte[] m = (wholeFile ? file : pickle).clone();
            int edits = 1 + random.nextInt(4);
            for (int e = 0; e < edits; e++) {
                int at = random.nextInt(m.length);
                m[at] = switch (random.nextInt(3)) {
                    case 0 -> (byte) random.nextInt(256);
                    case 1 -> (byte) (m[at] ^ (1 << random.nextInt(8)));
                    default -> (byte) (random.nextBoolean() ? 0xFF : 0);
                };
            }
            if (!wholeFile) {
                Map<String, byte[]> entries = new LinkedHashMap<>();
                entries.put("archive/data.pkl", m);
                entries.put("archive/data/0", tensors.get("w").data());
                entries.put("archive/data/1", tensors.get("b").data());
                m = zipBytes(entries);
            }
            try {
                Map<String, NpyArray> read = TorchStateDict.read(name, new ByteArrayChannel(m));
                read.values().forEach(TorchStateDictBadInputTest::assertNonFiniteCountAgrees);
                accepted++;
            } catch (FormatException expected) {
                assertThat(expected.file().toString()).startsWith("mutant.pt");
                assertThat(expected.getMessage()).doesNotContain("\n");
            } catch (IOException | RuntimeException | Error e) {
                throw new AssertionError("mutation " + i + " escaped as " + e, e);
            }
        }
        // mutations of tensor values, padding or unused header fields are legitimately accepted
        assertThat(accepted).isLessThan(mutations / 2);
    }

    /** The scanner that refuses non-finite weights counts what the widened values hold. */
    static void assertNonFiniteCountAgrees(NpyArray a) {
        if (!a.descr().startsWith("<f")) return;
        long bad = java.util.Arrays.stream(a.asDoubles()).filter(v -> !Double.isFinite(v)).count();
        assertThat(NonFiniteCount.of(a).count()).isEqualTo(bad);
    }

    /** Special values of every float dtype (NaN with payloads, infinities, -0, subnormals, extremes) read back bit for bit. */
    @Test
    void everyFloatValueReadsBackAsWritten() throws Exception {
        Map<String, NpyArray> tensors = new LinkedHashMap<>();
        tensors.put("f64", NpyArray.ofDoubles(new int[] {7}, new double[] {Double.NaN, Double.longBitsToDouble(0x7FF0_0000_0000_0001L),
            Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, Double.MIN_VALUE, -Double.MAX_VALUE}));
        tensors.put("f32", NpyArray.ofFloats(new int[] {7}, new float[] {Float.NaN, Float.intBitsToFloat(0xFFC00001),
            Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0f, Float.MIN_VALUE, Float.MAX_VALUE}));
        short[] halves = {(short) 0x7E00, (short) 0x7C01, (short) 0x7C00, (short) 0xFC00, (short) 0x8000, 0x0001, (short) 0xFBFF};
        tensors.put("f16", new NpyArray("<f2", new int[] {7}, dev.needlewb.converter.convert.Floats.littleEndian(halves)));
        Path pt = dir.resolve("values.pt");
        TorchStateDict.write(tensors, pt);
        Map<String, NpyArray> back = TorchStateDict.read(pt);
        for (var e : tensors.entrySet()) {
            assertThat(back.get(e.getKey()).data()).as(e.getKey()).isEqualTo(e.getValue().data());
            assertNonFiniteCountAgrees(back.get(e.getKey()));
            assertThat(NonFiniteCount.of(back.get(e.getKey())).count()).isEqualTo(4);
        }
    }

    private byte[] pickleOf(Path p, Map<String, NpyArray> tensors) throws Exception {
        TorchStateDict.write(tensors, p);
        byte[] bytes = Files.readAllBytes(p);
        int c = central(bytes, "archive/data.pkl");
        int size = (int) le(bytes, c + 24, 4);
        int local = (int) le(bytes, c + 42, 4);
        int start = local + 30 + (int) le(bytes, local + 26, 2) + (int) le(bytes, local + 28, 2);
        return java.util.Arrays.copyOfRange(bytes, start, start + size);
    }

    @Test
    void bigEndianArchivesAreRefused() throws Exception {
        Map<String, byte[]> entries = new LinkedHashMap<>();
        entries.put("archive/data.pkl", "\u0080\u0002}.".getBytes(StandardCharsets.ISO_8859_1));
        entries.put("archive/byteorder", "big".getBytes(StandardCharsets.US_ASCII));
        Path p = zip("big.pt", entries);
        malformed(ErrorKind.UNSUPPORTED, () -> TorchStateDict.read(p));
    }
}
