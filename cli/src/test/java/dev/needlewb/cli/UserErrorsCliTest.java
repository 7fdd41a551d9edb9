package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.safetensors.Safetensors;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.tokenizer.TokenizerVocab;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mistakes a user makes, and hostile text in their files: each ends with exit 2 and one line
 * naming the option, file, tensor and byte where there is one; input-derived text reaches the
 * terminal with its control characters spelled out.
 */
class UserErrorsCliTest {
    @TempDir
    Path dir;

    private static void assertOneLine(CliRun run, String... parts) {
        assertThat(run.exit()).as(run.err()).isEqualTo(2);
        assertThat(run.err().strip()).doesNotContain("\n").startsWith("needle-wb: ").contains(parts);
    }

    @Test
    void kvBitsWithoutACodebookIsAnOptionError() {
        for (String bits : new String[] {"-1", "1", "5", "7"}) {
            assertOneLine(CliRun.of("reference", MiniVariants.mini().toString(), "--tokens", "2,5", "--quant", "--kv-bits", bits,
                    "--out", dir.resolve("r.npz").toString()), "--kv-bits " + bits + ": ");
        }
        assertThat(dir.resolve("r.npz")).doesNotExist();
    }

    @Test
    void threadsBeyondTheProcessorsAreCappedWithANote() {
        CliRun run = CliRun.of("generate", MiniVariants.mini().toString(), "--prompt", "hi", "--max-new", "1", "--threads", "1000");
        assertThat(run.exit()).as(run.err()).isZero();
        int processors = Runtime.getRuntime().availableProcessors();
        assertThat(run.err()).contains("needle-wb: note: --threads 1000 capped at " + processors + ", the processors this JVM may use");
        assertOneLine(CliRun.of("generate", MiniVariants.mini().toString(), "--prompt", "hi", "--threads", "0"), "--threads must be at least 1");
    }

    @Test
    void aBinaryTokensFileNamesItsFirstBadByte() throws Exception {
        Path tokens = Files.write(dir.resolve("tokens.bin"), new byte[] {'2', ',', '5', ',', (byte) 0xC3, 0x28, '7'});
        assertOneLine(CliRun.of("reference", MiniVariants.mini().toString(), "--tokens-file", tokens.toString(),
                "--out", dir.resolve("r.npz").toString()), tokens + ": at byte 4: not a text file of token ids: byte 0xC3 starts no UTF-8 character");
    }

    @Test
    void inspectValidatesTheTokenizerBlob() throws Exception {
        long blobOffset;
        TokenizerVocab vocab;
        int index;
        try (CactFile mini = CactFile.open(MiniVariants.mini())) {
            blobOffset = mini.tensor("tokenizer").offset();
            index = mini.tensor("tokenizer").index();
            vocab = mini.tokenizerVocab();
        }
        // piece 0's type byte (header 24 bytes, then score f32, type u8)
        Path badType = MiniVariants.withTensor(dir.resolve("type.cact"), "tokenizer", b -> {
            b[24 + 4] = 9;
            return b;
        });
        assertOneLine(CliRun.of("inspect", badType.toString()), badType + ": tensor " + index + " (tokenizer) at byte " + (blobOffset + 28)
                + ": piece 0: type 9 is not one of 0..4");
        Path truncated = MiniVariants.withTensor(dir.resolve("short.cact"), "tokenizer", b -> Arrays.copyOf(b, b.length - 1));
        assertOneLine(CliRun.of("inspect", truncated.toString()), "(tokenizer) at byte ", "runs past the blob end");
        // a well-formed tokenizer one piece short of the header's vocab, as upstream's _pack_cact refuses to write
        int n = vocab.size() - 1;
        byte[] shorter = new TokenizerVocab(IntStream.range(0, n).mapToObj(vocab::piece).toList(), Arrays.copyOf(scores(vocab), n),
                IntStream.range(0, n).mapToObj(vocab::type).toList(), vocab.padId(), vocab.eosId(), vocab.bosId(), vocab.unkId(),
                vocab.addDummyPrefix(), vocab.byteFallback()).toBytes();
        Path fewer = MiniVariants.withTensor(dir.resolve("fewer.cact"), "tokenizer", b -> shorter);
        assertOneLine(CliRun.of("inspect", fewer.toString()), "the tokenizer has " + (vocab.size() - 1) + " pieces, the header's vocab is "
                + vocab.size());
    }

    private static float[] scores(TokenizerVocab vocab) {
        float[] s = new float[vocab.size()];
        for (int i = 0; i < s.length; i++) s[i] = vocab.score(i);
        return s;
    }

    @Test
    void controlCharactersFromFilesNeverReachTheTerminalRaw() throws Exception {
        Path named = dir.resolve("\u001b]0;owned\u0007x.cact");
        CliRun missing = CliRun.of("inspect", named.toString());
        assertOneLine(missing, "\\u001b]0;owned\\u0007x.cact: cannot read: no such file");
        assertThat(missing.err()).doesNotContain("\u001b", "\u0007");

        Map<String, NpyArray> evil = new LinkedHashMap<>();
        evil.put("evil\u001b[2J\nkey\u202e", NpyArray.ofFloats(new int[] {1}, new float[] {1}));
        Path st = safetensors(dir.resolve("evil.safetensors"), evil);
        CliRun run = CliRun.of("convert", st.toString(), "--to", dir.resolve("x.cact").toString(), "--base", MiniVariants.mini().toString());
        assertOneLine(run, "(evil\\u001b[2J\\u000akey\\u202e) at byte ", "not a tensor of this model");
        assertThat(run.err()).doesNotContain("\u001b", "\u202e");
    }

    @Test
    void aSafetensorsHeaderNamingATensorTwiceIsRefused() throws Exception {
        String entry = "{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}";
        byte[] header = ("{\"final_norm.weight\":" + entry + ",\"final_norm.weight\":" + entry + "}").getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(8 + header.length + 4).order(ByteOrder.LITTLE_ENDIAN).putLong(header.length).put(header);
        Path st = Files.write(dir.resolve("twice.safetensors"), b.array());
        assertOneLine(CliRun.of("convert", st.toString(), "--to", dir.resolve("x.cact").toString(), "--base", MiniVariants.mini().toString()),
                st + ": at byte ", "Duplicate field 'final_norm.weight'");
    }

    @Test
    void anIntegerTensorNamesFileAndByte() throws Exception {
        Map<String, NpyArray> ints = new LinkedHashMap<>();
        ints.put("final_norm.weight", NpyArray.ofInts(new int[] {128}, new int[128]));
        Path st = safetensors(dir.resolve("ints.safetensors"), ints);
        long headerLen = ByteBuffer.wrap(Files.readAllBytes(st), 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        assertOneLine(CliRun.of("convert", st.toString(), "--to", dir.resolve("x.cact").toString(), "--base", MiniVariants.mini().toString()),
                st + ": tensor 0 (final_norm.weight) at byte " + (8 + headerLen) + ": dtype <i4, expected float32 or float16");
    }

    private static Path safetensors(Path file, Map<String, NpyArray> tensors) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Safetensors.write(out, tensors, Map.of());
        return Files.write(file, out.toByteArray());
    }
}
