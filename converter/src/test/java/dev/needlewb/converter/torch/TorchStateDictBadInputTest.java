package dev.needlewb.converter.torch;

import static dev.needlewb.converter.pickle.PickleOp.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.finite.NonFiniteCount;
import dev.needlewb.converter.pickle.PickleEmitter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
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
        assertThatThrownBy(() -> TorchStateDict.write(unsigned, pt))
                .isInstanceOf(WorkbenchException.class).hasMessageContaining("tensor x has dtype <u4");
        Path input = dir.resolve("in.pt");
        TorchStateDict.write(small(), input);
        byte[] before = Files.readAllBytes(input);
        assertThatThrownBy(() -> TorchStateDict.write(small(), input, input))
                .isInstanceOf(WorkbenchException.class).hasMessageContaining("refusing to overwrite the input");
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
        assertThatThrownBy(() -> TorchStateDict.read(evil)).isInstanceOf(FormatException.class)
                .hasMessageStartingWith(evil + ":archive/data.pkl: at byte 2: pickle global os.system is not allowed");
        byte[] eval = "\u0080\u0004\u008c\u0008builtins\u008c\u0004eval\u0093\u008c\u00011\u0085R.".getBytes(StandardCharsets.ISO_8859_1);
        Path evil2 = withPickle("evil2.pt", eval);
        assertThatThrownBy(() -> TorchStateDict.read(evil2)).isInstanceOf(FormatException.class)
                .hasMessageContaining("at byte 18: pickle global builtins.eval is not allowed");
        byte[] notTensor = "\u0080\u0002}X\u0001\u0000\u0000\u0000aK\u0001s.".getBytes(StandardCharsets.ISO_8859_1);
        Path number = withPickle("number.pt", notTensor);
        assertThatThrownBy(() -> TorchStateDict.read(number)).isInstanceOf(FormatException.class)
                .hasMessageContaining("tensor 0 (a)").hasMessageContaining("value is not a tensor");
    }

    @Test
    void entryNamesOutsideOneFolderAreRefused() throws Exception {
        byte[] pkl = "\u0080\u0002}.".getBytes(StandardCharsets.ISO_8859_1);
        Map<String, String> cases = Map.of(
                "archive/../../etc/passwd", "has an empty, '.' or '..' segment",
                "/archive/data.pkl", "is not a relative path",
                "archive\\data.pkl", "is not a relative path",
                "C:/archive/data.pkl", "is not a relative path",
                "data.pkl", "is not inside the archive's top-level folder",
                "other/data.pkl", "is outside the top-level folder 'archive'");
        int i = 0;
        for (var c : cases.entrySet()) {
            Map<String, byte[]> entries = new LinkedHashMap<>();
            entries.put("archive/version", "3\n".getBytes(StandardCharsets.US_ASCII));
            entries.put(c.getKey(), pkl);
            Path p = zip("names" + i++ + ".pt", entries);
            assertThatThrownBy(() -> TorchStateDict.read(p)).as(c.getKey()).isInstanceOf(FormatException.class)
                    .hasMessageContaining(c.getValue());
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
        assertThatThrownBy(() -> TorchStateDict.read(hugeEntry)).isInstanceOf(FormatException.class)
                .hasMessageContaining("entry archive/data/0 (4294967280 bytes at local header").hasMessageContaining("runs past the central directory");
        Path zipBomb = patched("bomb.pt", b -> {
            int c = central(b, "archive/data/0");
            put(b, c + 10, 2, 8);
            put(b, c + 24, 4, 0x7FFFFFF0L);
        });
        assertThatThrownBy(() -> TorchStateDict.read(zipBomb)).isInstanceOf(FormatException.class)
                .hasMessageContaining("claims 2147483632 bytes from 24 compressed");
        Path localExtra = patched("extra.pt", b -> put(b, 28, 2, 0xFFFF));
        assertThatThrownBy(() -> TorchStateDict.read(localExtra)).isInstanceOf(FormatException.class)
                .hasMessageContaining("at byte 0: entry archive/data.pkl data runs past the central directory");
        Path directory = patched("cen.pt", b -> put(b, b.length - 22 + 12, 4, 0x7FFFFFFFL));
        assertThatThrownBy(() -> TorchStateDict.read(directory)).isInstanceOf(FormatException.class)
                .hasMessageContaining("central directory (2147483647 bytes at");
        Path bzip2 = patched("bzip2.pt", b -> put(b, central(b, "archive/data.pkl") + 10, 2, 12));
        assertThatThrownBy(() -> TorchStateDict.read(bzip2)).isInstanceOf(FormatException.class)
                .hasMessageContaining("entry archive/data.pkl uses compression method 12 (only STORED and DEFLATE)");
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
        assertThatThrownBy(() -> TorchStateDict.read(past)).isInstanceOf(FormatException.class)
                .hasMessageContaining("tensor 0 (t)").hasMessageContaining("reaches element 6 of a storage of 6");
        Path overflow = withPickle("overflow.pt", viewPickle(6, 0, new long[] {3, 2}, new long[] {Long.MAX_VALUE / 2 + 7, 1}));
        assertThatThrownBy(() -> TorchStateDict.read(overflow)).isInstanceOf(FormatException.class).hasMessageContaining("past 2^63");
        Path broadcast = withPickle("broadcast.pt", viewPickle(6, 0, new long[] {1000, 6}, new long[] {0, 1}));
        assertThatThrownBy(() -> TorchStateDict.read(broadcast)).isInstanceOf(FormatException.class)
                .hasMessageContaining("view of 6000 elements is larger than its storage of 6");
        // no element, so it fits any storage: its sizes near and past 2^31 must still be refused or read, never wrap
        Path empty = withPickle("empty.pt", viewPickle(6, 0, new long[] {0, (1L << 31) + 5}, new long[] {1, 1}));
        assertThatThrownBy(() -> TorchStateDict.read(empty)).isInstanceOf(FormatException.class)
                .hasMessageContaining("tensor 0 (t)").hasMessageContaining("dimension 1 of size 2147483653 exceeds 2^31-1");
        Path edge = withPickle("edge.pt", viewPickle(6, 0, new long[] {0, Integer.MAX_VALUE}, new long[] {1, 1}));
        assertThat(TorchStateDict.read(edge).get("t").shape()).containsExactly(0, Integer.MAX_VALUE);
        Path numel = withPickle("numel.pt", viewPickle(1L << 40, 0, new long[] {1}, new long[] {1}));
        assertThatThrownBy(() -> TorchStateDict.read(numel)).isInstanceOf(FormatException.class)
                .hasMessageContaining("tensor 0 (t)").hasMessageContaining("storage entry archive/data/0 holds 24 bytes, but a FloatStorage of 1099511627776 elements needs more");
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
                assertThat(e.getMessage()).startsWith(cut.toString()).doesNotContain("\n");
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
                assertThat(e.getMessage()).startsWith(cut + ":archive/data.pkl: ").doesNotContain("\n");
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
                assertThat(expected.getMessage()).startsWith("mutant.pt").doesNotContain("\n");
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
        assertThatThrownBy(() -> TorchStateDict.read(p)).isInstanceOf(FormatException.class)
                .hasMessageContaining("byteorder is 'big', only little-endian is supported");
    }
}
