package dev.needlewb.core.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.golden.Golden;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Seeded mutation fuzzing of both tokenizer parsers: whatever the bytes, the only exception that
 * may escape is {@link FormatException}; a blob that parses must write back to the same bytes.
 * And the blob's values, field by field, against the rules the parser states.
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
                SentencePieceModel.parse(input, FILE).toVocab(dev.needlewb.core.generation.Generation.NEEDLE2).toBytes();
                accepted++;
            } catch (FormatException expected) {
                // the parser's one allowed way to refuse input
            } catch (RuntimeException | Error e) {
                fail("mutation " + i + " escaped as " + e, e);
            }
        }
        assertThat(accepted).isBetween(1, MUTATIONS - 1);
    }

    /**
     * The blob's values rather than its structure: every piece's score set to a float of each
     * class, and the header's counts and ids set near the vocabulary size, 2^31 and 2^32. A NaN
     * score is refused at its record naming the piece (merges compare scores), an id outside the
     * vocabulary or a count past what the blob holds is refused at its field; every other value
     * is read, written back unchanged, and encodes text without failing.
     */
    @Test
    void blobValuesFollowTheParsersRules() throws Exception {
        byte[] seed = TokenizerVocabTest.goldenBlob();
        TokenizerVocab golden = TokenizerVocab.parse(seed, FILE, 110, 0);
        float[] scores = {Float.NaN, Float.intBitsToFloat(0xFFC00001), Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY,
            Float.MAX_VALUE, -Float.MAX_VALUE, Float.MIN_VALUE, -0f};
        ByteBuffer le = ByteBuffer.wrap(seed).order(ByteOrder.LITTLE_ENDIAN);
        int record = TokenizerVocab.HEADER_BYTES;
        for (int piece = 0; piece < golden.size(); piece++) {
            float score = scores[piece % scores.length];
            byte[] bytes = seed.clone();
            ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putFloat(record, score);
            try {
                TokenizerVocab vocab = TokenizerVocab.parse(bytes, FILE, 110, 0);
                if (Float.isNaN(score)) fail("piece " + piece + " with a NaN score was accepted");
                assertThat(vocab.toBytes()).isEqualTo(bytes);
                new Tokenizer(vocab).encode("What is the weather in Paris? <tool_call> 1234");
            } catch (FormatException e) {
                if (!Float.isNaN(score)) fail("piece " + piece + " with score " + score + " was refused: " + e.getMessage());
                assertThat(e.offset()).isEqualTo(record);
                assertThat(e.kind()).isEqualTo(ErrorKind.BAD_TOKENIZER);
            }
            record += TokenizerVocab.RECORD_HEAD_BYTES + (le.getShort(record + 5) & 0xFFFF);
        }
        long n = golden.size();
        long[] near = {0, n - 1, n, n + 1, Integer.MAX_VALUE, 1L << 31, 0xFFFF_FFFFL};
        for (int field = 0; field < 5; field++) {
            for (long v : near) {
                byte[] bytes = seed.clone();
                ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(4 * field, (int) v);
                boolean fits = field == 0 ? v == n : v < n;
                try {
                    TokenizerVocab.parse(bytes, FILE, 110, 0);
                    if (!fits) fail("header field " + field + " = " + v + " was accepted");
                } catch (FormatException e) {
                    if (fits) fail("header field " + field + " = " + v + " was refused: " + e.getMessage());
                    // a special id at the ids' field; a count at its field when the blob cannot hold it, at the ids
                    // when they fall outside it (0 pieces), else where the pieces stop fitting the blob
                    long at = e.offset();
                    if (field > 0) assertThat(at).isEqualTo(4);
                    else assertThat(at == 0 || at == 4 || at >= TokenizerVocab.HEADER_BYTES && at <= seed.length).as(v + " at " + at).isTrue();
                }
            }
        }
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
