package dev.needlewb.converter.flax;

import static dev.needlewb.core.Refusals.malformed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.pickle.PickleScanner;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hostile pickles are refused before anything is constructed, with the global and its offset. */
class SafePickleSecurityTest {
    private static final Path NAME = Path.of("evil.pkl");

    /** Builds pickle bytes from opcodes and operands (ints are single bytes, strings are latin-1). */
    private static byte[] bytes(Object... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object p : parts) {
            switch (p) {
                case Integer i -> out.write(i);
                case Character c -> out.write(c);
                case String s -> out.writeBytes(s.getBytes(StandardCharsets.ISO_8859_1));
                case byte[] b -> out.writeBytes(b);
                default -> throw new IllegalArgumentException();
            }
        }
        return out.toByteArray();
    }

    private static byte[] shortUnicode(String s) {
        return bytes(0x8c, s.length(), s);
    }

    @Test
    void protocolZeroGlobalToOsSystemIsRefusedAndNothingRuns(@TempDir Path tmp) {
        Path marker = tmp.resolve("pwned");
        byte[] evil = bytes("cos\nsystem\n(S'touch " + marker + "'\ntR.");
        assertThat(malformed(ErrorKind.UNSAFE_PICKLE_GLOBAL, () -> SafePickle.load(NAME, evil)).offset()).isEqualTo(0);
        assertThat(Files.exists(marker)).isFalse();
    }

    @Test
    void stackGlobalToBuiltinsEvalIsRefusedAtItsOffset() {
        byte[] evil = bytes(0x80, 4, shortUnicode("builtins"), shortUnicode("eval"), 0x93,
                shortUnicode("__import__('os').system('true')"), 0x85, 'R', '.');
        // PROTO (2 bytes) + two SHORT_BINUNICODE (10 + 6 bytes): STACK_GLOBAL sits at byte 18.
        assertThat(malformed(ErrorKind.UNSAFE_PICKLE_GLOBAL, () -> SafePickle.load(NAME, evil)).offset()).isEqualTo(18);
    }

    @Test
    void stackGlobalOperandsFetchedFromTheMemoAreStillNamed() {
        byte[] evil = bytes(0x80, 4, shortUnicode("posix"), 0x94, 'h', 0, '0', shortUnicode("system"), 0x94,
                'h', 0, 'h', 1, 0x93, shortUnicode("id"), 0x85, 'R', '.');
        // the wording is the point: the global is named though its operands came from the memo
        assertThat(malformed(ErrorKind.UNSAFE_PICKLE_GLOBAL, () -> SafePickle.load(NAME, evil)))
                .hasMessageContaining("pickle global posix.system is not allowed");
    }

    @Test
    void anAllowedNumpyGlobalDoesNotCoverAReduceOnAnotherCallable() {
        byte[] evil = bytes(0x80, 2, "cnumpy.core.multiarray\n_reconstruct\n", 'q', 0,
                "csubprocess\ncheck_call\n", ']', 'X', 4, 0, 0, 0, "true", 'a', 0x85, 'R', '.');
        // PROTO (2) + GLOBAL with its two lines (1 + 35) + BINPUT (2): the second GLOBAL is at byte 40.
        assertThat(malformed(ErrorKind.UNSAFE_PICKLE_GLOBAL, () -> SafePickle.load(NAME, evil)).offset()).isEqualTo(40);
        byte[] callOnAString = bytes(0x80, 4, shortUnicode("numpy"), ')', 'R', '.');
        assertThat(malformed(ErrorKind.BAD_PICKLE, () -> SafePickle.load(NAME, callOnAString)).offset()).isEqualTo(10);
        byte[] dottedName = bytes(0x80, 4, shortUnicode("numpy"), shortUnicode("dtype.mro"), 0x93, '.');
        malformed(ErrorKind.UNSAFE_PICKLE_GLOBAL, () -> SafePickle.load(NAME, dottedName));
    }

    @Test
    void everyTruncationOfAValidPickleIsRefused() throws Exception {
        byte[] valid = PickleBytes.of(Map.of("a", NpyArray.ofFloats(new int[] {2, 2}, new float[] {1, 2, 3, 4}), "b", "text"));
        assertThat(SafePickle.load(NAME, valid)).isInstanceOf(Map.class);
        for (int n = 0; n < valid.length; n++) {
            byte[] cut = java.util.Arrays.copyOf(valid, n);
            int length = n;
            FormatException e = malformed(ErrorKind.TRUNCATED, () -> SafePickle.load(NAME, cut));
            assertThat(e.file()).as("prefix of %d bytes", length).isEqualTo(NAME);
        }
    }

    @Test
    void absurdLengthsAreRefusedBeforeAllocating() {
        byte[] huge = bytes(0x80, 4, 0x8e, 0, 0, 0, 0, 0, 0, 0, 0x40, '.');
        assertThat(malformed(ErrorKind.TRUNCATED, () -> SafePickle.load(NAME, huge)).offset()).isEqualTo(2);
        byte[] negative = bytes(0x80, 4, 0x8e, 0, 0, 0, 0, 0, 0, 0, 0x80, '.');
        assertThat(malformed(ErrorKind.TRUNCATED, () -> SafePickle.load(NAME, negative)).offset()).isEqualTo(2);
        byte[] binbytes = bytes(0x80, 3, 'B', 0xff, 0xff, 0xff, 0xff, '.');
        assertThat(malformed(ErrorKind.TRUNCATED, () -> SafePickle.load(NAME, binbytes)).offset()).isEqualTo(2);
    }

    @Test
    void structuralAbusesAreRefused() {
        assertThat(malformed(ErrorKind.UNSUPPORTED, () -> SafePickle.load(NAME, bytes(0x80, 5, 0x97, '.'))).offset()).isEqualTo(2);
        malformed(ErrorKind.UNSAFE_PICKLE_GLOBAL, () -> SafePickle.load(NAME, bytes(0x80, 2, 'P', "id\n", '.')));
        malformed(ErrorKind.UNSAFE_PICKLE_GLOBAL, () -> SafePickle.load(NAME, bytes(0x80, 2, 0x82, 1, '.')));
        assertThat(malformed(ErrorKind.BAD_PICKLE, () -> SafePickle.load(NAME, bytes(0x80, 2, 0xff, '.'))).offset()).isEqualTo(2);
        malformed(ErrorKind.BAD_PICKLE, () -> SafePickle.load(NAME, bytes(0x80, 2, 'h', 7, '.')));
        malformed(ErrorKind.TRAILING_BYTES, () -> SafePickle.load(NAME, bytes(0x80, 2, ']', 'N', '.', 'N')));
        // A list used as a dict key would make Java hash a self-referencing list.
        malformed(ErrorKind.BAD_PICKLE, () -> SafePickle.load(NAME, bytes(0x80, 2, '}', ']', 'N', 's', '.')));
        // A list that contains itself.
        malformed(ErrorKind.BAD_PICKLE, () -> SafePickle.load(NAME, bytes(0x80, 2, ']', 'q', 0, 'h', 0, 'a', '.')));
        // BUILD on a dict (Python would set attributes on arbitrary objects).
        malformed(ErrorKind.BAD_PICKLE, () -> SafePickle.load(NAME, bytes(0x80, 2, '}', '}', 'b', '.')));
    }

    @Test
    void codecsEncodeIsOnlyAcceptedAsProtocolTwosLatin1Bytes() throws Exception {
        byte[] latin1 = bytes(0x80, 2, "c_codecs\nencode\n", 'X', 2, 0, 0, 0, 0xc3, 0xbf, 'X', 6, 0, 0, 0, "latin1", 0x86, 'R', '.');
        assertThat((byte[]) SafePickle.load(NAME, latin1)).containsExactly(0xff);
        byte[] rot13 = bytes(0x80, 2, "c_codecs\nencode\n", 'X', 1, 0, 0, 0, "x", 'X', 5, 0, 0, 0, "rot13", 0x86, 'R', '.');
        // PROTO 2 + GLOBAL 16 + BINUNICODE 6 + BINUNICODE 10 + TUPLE2 1: the REDUCE is at byte 35.
        assertThat(malformed(ErrorKind.BAD_PICKLE, () -> SafePickle.load(NAME, rot13)).offset()).isEqualTo(35);
    }

    @Test
    void theScanNamesEveryGlobalOfTheGoldenCheckpoint() throws Exception {
        Path golden = dev.needlewb.golden.Golden.mini("mini.ckpt.pkl");
        PickleScanner.Scan scan = PickleScanner.scan(golden, Files.readAllBytes(golden), SafePickle.RULES);
        assertThat(scan.protocol()).isEqualTo(4);
        // Each global is named once (STACK_GLOBAL), later arrays fetch it from the memo; offsets as pickletools shows them.
        assertThat(scan.globals()).containsExactly(
                new PickleScanner.GlobalRef("numpy._core.multiarray", "_reconstruct", 115),
                new PickleScanner.GlobalRef("numpy", "ndarray", 135),
                new PickleScanner.GlobalRef("numpy", "dtype", 168));
    }

    @Test
    void allowListIsExactlyTheDocumentedOne() {
        assertThat(SafePickle.ALLOWED_GLOBALS).containsExactlyInAnyOrder(
                "numpy.core.multiarray._reconstruct", "numpy._core.multiarray._reconstruct",
                "numpy._core.numeric._frombuffer", "numpy.core.numeric._frombuffer", "numpy.dtype", "numpy.ndarray",
                "numpy._core.multiarray.scalar", "numpy.core.multiarray.scalar", "collections.OrderedDict",
                "needle.model.architecture.TransformerConfig", "_codecs.encode");
    }
}
