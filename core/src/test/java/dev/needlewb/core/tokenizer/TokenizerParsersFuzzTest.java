package dev.needlewb.core.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.needlewb.core.FormatException;
import dev.needlewb.golden.Golden;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Seeded mutation fuzzing of both tokenizer parsers: whatever the bytes, the only exception that
 * may escape is {@link FormatException}; a blob that parses must write back to the same bytes.
 */
class TokenizerParsersFuzzTest {
    private static final int MUTATIONS = 20_000;
    private static final Path FILE = Path.of("fuzz");

    @Test
    void blobParserOnlyThrowsFormatException() {
        byte[] seed = TokenizerVocabTest.goldenBlob();
        Random random = new Random(20260601L);
        int accepted = 0;
        for (int i = 0; i < MUTATIONS; i++) {
            byte[] input = mutate(seed, random);
            try {
                TokenizerVocab vocab = TokenizerVocab.parse(input, FILE, 110, 0);
                assertThat(vocab.toBytes()).as("mutation %d accepted but not written back identically", i).isEqualTo(input);
                accepted++;
            } catch (FormatException expected) {
                // the parser's one allowed way to refuse input
            } catch (RuntimeException | Error e) {
                fail("mutation " + i + " escaped as " + e, e);
            }
        }
        // some mutations (e.g. a changed score byte) are harmless; both outcomes must occur
        assertThat(accepted).isBetween(1, MUTATIONS - 1);
    }

    @Test
    void sentencePieceParserOnlyThrowsFormatException() throws Exception {
        byte[] seed = Files.readAllBytes(Golden.mini("tok512.model"));
        Random random = new Random(20260602L);
        int accepted = 0;
        for (int i = 0; i < MUTATIONS; i++) {
            byte[] input = mutate(seed, random);
            try {
                SentencePieceModel.parse(input, FILE).toVocab().toBytes();
                accepted++;
            } catch (FormatException expected) {
                // the parser's one allowed way to refuse input
            } catch (RuntimeException | Error e) {
                fail("mutation " + i + " escaped as " + e, e);
            }
        }
        assertThat(accepted).isBetween(1, MUTATIONS - 1);
    }

    /** One to four random edits: byte overwrite, bit flip, truncation, insertion, deletion, splice. */
    static byte[] mutate(byte[] seed, Random random) {
        byte[] out = seed.clone();
        int edits = 1 + random.nextInt(4);
        for (int e = 0; e < edits && out.length > 0; e++) {
            int at = random.nextInt(out.length);
            switch (random.nextInt(6)) {
                case 0 -> out[at] = (byte) random.nextInt(256);
                case 1 -> out[at] ^= (byte) (1 << random.nextInt(8));
                case 2 -> out = Arrays.copyOf(out, at);
                case 3 -> {
                    byte[] grown = new byte[out.length + 1 + random.nextInt(8)];
                    System.arraycopy(out, 0, grown, 0, at);
                    for (int k = at; k < at + grown.length - out.length; k++) grown[k] = (byte) random.nextInt(256);
                    System.arraycopy(out, at, grown, at + grown.length - out.length, out.length - at);
                    out = grown;
                }
                case 4 -> {
                    int len = Math.min(1 + random.nextInt(16), out.length - at);
                    byte[] shrunk = new byte[out.length - len];
                    System.arraycopy(out, 0, shrunk, 0, at);
                    System.arraycopy(out, at + len, shrunk, at, out.length - at - len);
                    out = shrunk;
                }
                default -> {
                    // copy a run from elsewhere: keeps field-like structure but shifts lengths
                    int from = random.nextInt(out.length);
                    int len = Math.min(Math.min(1 + random.nextInt(32), out.length - from), out.length - at);
                    System.arraycopy(out, from, out, at, len);
                }
            }
        }
        return out;
    }
}
