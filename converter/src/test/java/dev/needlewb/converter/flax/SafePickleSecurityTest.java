package dev.needlewb.converter.flax;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
        assertThatThrownBy(() -> SafePickle.load(NAME, evil))
                .isInstanceOf(FormatException.class)
                .hasMessageStartingWith("evil.pkl: at byte 0: pickle global os.system is not allowed");
        assertThat(Files.exists(marker)).isFalse();
    }

    @Test
    void stackGlobalToBuiltinsEvalIsRefusedAtItsOffset() {
        byte[] evil = bytes(0x80, 4, shortUnicode("builtins"), shortUnicode("eval"), 0x93,
                shortUnicode("__import__('os').system('true')"), 0x85, 'R', '.');
        // PROTO (2 bytes) + two SHORT_BINUNICODE (10 + 6 bytes): STACK_GLOBAL sits at byte 18.
        assertThatThrownBy(() -> SafePickle.load(NAME, evil))
                .isInstanceOf(FormatException.class)
                .hasMessageStartingWith("evil.pkl: at byte 18: pickle global builtins.eval is not allowed");
    }

    @Test
    void stackGlobalOperandsFetchedFromTheMemoAreStillNamed() {
        byte[] evil = bytes(0x80, 4, shortUnicode("posix"), 0x94, 'h', 0, '0', shortUnicode("system"), 0x94,
                'h', 0, 'h', 1, 0x93, shortUnicode("id"), 0x85, 'R', '.');
        assertThatThrownBy(() -> SafePickle.load(NAME, evil))
                .isInstanceOf(FormatException.class).hasMessageContaining("pickle global posix.system is not allowed");
    }

    @Test
    void anAllowedNumpyGlobalDoesNotCoverAReduceOnAnotherCallable() {
        byte[] evil = bytes(0x80, 2, "cnumpy.core.multiarray\n_reconstruct\n", 'q', 0,
                "csubprocess\ncheck_call\n", ']', 'X', 4, 0, 0, 0, "true", 'a', 0x85, 'R', '.');
        // PROTO (2) + GLOBAL with its two lines (1 + 35) + BINPUT (2): the second GLOBAL is at byte 40.
        assertThatThrownBy(() -> SafePickle.load(NAME, evil))
                .isInstanceOf(FormatException.class)
                .hasMessageContaining("at byte 40: pickle global subprocess.check_call is not allowed");
        byte[] callOnAString = bytes(0x80, 4, shortUnicode("numpy"), ')', 'R', '.');
        assertThatThrownBy(() -> SafePickle.load(NAME, callOnAString))
                .isInstanceOf(FormatException.class).hasMessageContaining("at byte 10: call on something that is not a named global");
        byte[] dottedName = bytes(0x80, 4, shortUnicode("numpy"), shortUnicode("dtype.mro"), 0x93, '.');
        assertThatThrownBy(() -> SafePickle.load(NAME, dottedName))
                .isInstanceOf(FormatException.class).hasMessageContaining("pickle global numpy.dtype.mro is not allowed");
    }

    @Test
    void everyTruncationOfAValidPickleIsRefused() throws Exception {
        byte[] valid = PickleBytes.of(Map.of("a", NpyArray.ofFloats(new int[] {2, 2}, new float[] {1, 2, 3, 4}), "b", "text"));
        assertThat(SafePickle.load(NAME, valid)).isInstanceOf(Map.class);
        for (int n = 0; n < valid.length; n++) {
            byte[] cut = java.util.Arrays.copyOf(valid, n);
            int length = n;
            assertThatThrownBy(() -> SafePickle.load(NAME, cut)).as("prefix of %d bytes", length)
                    .isInstanceOf(FormatException.class)
                    .hasMessageMatching("evil\\.pkl: (at byte \\d+: )?(empty file|truncated|pickle ends without STOP).*");
        }
    }

    @Test
    void absurdLengthsAreRefusedBeforeAllocating() {
        byte[] huge = bytes(0x80, 4, 0x8e, 0, 0, 0, 0, 0, 0, 0, 0x40, '.');
        assertThatThrownBy(() -> SafePickle.load(NAME, huge))
                .isInstanceOf(FormatException.class)
                .hasMessage("evil.pkl: at byte 2: length 4611686018427387904 runs past the end of the file (1 bytes left)");
        byte[] negative = bytes(0x80, 4, 0x8e, 0, 0, 0, 0, 0, 0, 0, 0x80, '.');
        assertThatThrownBy(() -> SafePickle.load(NAME, negative))
                .isInstanceOf(FormatException.class).hasMessageContaining("length >= 2^63 runs past the end");
        byte[] binbytes = bytes(0x80, 3, 'B', 0xff, 0xff, 0xff, 0xff, '.');
        assertThatThrownBy(() -> SafePickle.load(NAME, binbytes))
                .isInstanceOf(FormatException.class).hasMessageContaining("at byte 2: truncated: needs 4294967295 more bytes");
    }

    @Test
    void structuralAbusesAreRefused() {
        assertThatThrownBy(() -> SafePickle.load(NAME, bytes(0x80, 5, 0x97, '.')))
                .isInstanceOf(FormatException.class).hasMessageContaining("at byte 2: out-of-band buffers are not supported");
        assertThatThrownBy(() -> SafePickle.load(NAME, bytes(0x80, 2, 'P', "id\n", '.')))
                .isInstanceOf(FormatException.class).hasMessageContaining("persistent ids");
        assertThatThrownBy(() -> SafePickle.load(NAME, bytes(0x80, 2, 0x82, 1, '.')))
                .isInstanceOf(FormatException.class).hasMessageContaining("extension-registry");
        assertThatThrownBy(() -> SafePickle.load(NAME, bytes(0x80, 2, 0xff, '.')))
                .isInstanceOf(FormatException.class).hasMessageContaining("at byte 2: unknown pickle opcode 0xff");
        assertThatThrownBy(() -> SafePickle.load(NAME, bytes(0x80, 2, 'h', 7, '.')))
                .isInstanceOf(FormatException.class).hasMessageContaining("memo entry 7 was never stored");
        assertThatThrownBy(() -> SafePickle.load(NAME, bytes(0x80, 2, ']', 'N', '.', 'N')))
                .isInstanceOf(FormatException.class).hasMessageContaining("1 bytes after STOP");
        // A list used as a dict key would make Java hash a self-referencing list.
        assertThatThrownBy(() -> SafePickle.load(NAME, bytes(0x80, 2, '}', ']', 'N', 's', '.')))
                .isInstanceOf(FormatException.class).hasMessageContaining("SETITEM with a key that is not a string or number");
        // A list that contains itself.
        assertThatThrownBy(() -> SafePickle.load(NAME, bytes(0x80, 2, ']', 'q', 0, 'h', 0, 'a', '.')))
                .isInstanceOf(FormatException.class).hasMessageContaining("recursive structure");
        // BUILD on a dict (Python would set attributes on arbitrary objects).
        assertThatThrownBy(() -> SafePickle.load(NAME, bytes(0x80, 2, '}', '}', 'b', '.')))
                .isInstanceOf(FormatException.class).hasMessageContaining("BUILD on something that is not a constructed object");
    }

    @Test
    void codecsEncodeIsOnlyAcceptedAsProtocolTwosLatin1Bytes() throws Exception {
        byte[] latin1 = bytes(0x80, 2, "c_codecs\nencode\n", 'X', 2, 0, 0, 0, 0xc3, 0xbf, 'X', 6, 0, 0, 0, "latin1", 0x86, 'R', '.');
        assertThat((byte[]) SafePickle.load(NAME, latin1)).containsExactly(0xff);
        byte[] rot13 = bytes(0x80, 2, "c_codecs\nencode\n", 'X', 1, 0, 0, 0, "x", 'X', 5, 0, 0, 0, "rot13", 0x86, 'R', '.');
        // PROTO 2 + GLOBAL 16 + BINUNICODE 6 + BINUNICODE 10 + TUPLE2 1: the REDUCE is at byte 35.
        assertThatThrownBy(() -> SafePickle.load(NAME, rot13))
                .isInstanceOf(FormatException.class).hasMessageContaining("at byte 35: _codecs.encode is only accepted as encode(text, 'latin1')");
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
