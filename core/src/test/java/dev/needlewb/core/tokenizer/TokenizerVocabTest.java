package dev.needlewb.core.tokenizer;

import static dev.needlewb.core.Refusals.malformed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.golden.Golden;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class TokenizerVocabTest {
    private static final Path FILE = Path.of("mini.cact");
    private static final int TENSOR = 110;
    private static final long OFFSET = 1_000_000;

    static byte[] goldenBlob() {
        // a copy: the golden cache shares its arrays and tests edit blobs
        return Golden.array(Golden.mini("cact_tensors.npz"), "t110").data().clone();
    }

    @Test
    void goldenBlobParsesAndWritesBackByteForByte() throws Exception {
        byte[] blob = goldenBlob();
        TokenizerVocab vocab = TokenizerVocab.parse(blob, FILE, TENSOR, OFFSET);

        assertThat(vocab.toBytes()).isEqualTo(blob);
        // golden README section j / tokenizer.json summary
        assertThat(vocab.size()).isEqualTo(512);
        assertThat(vocab.typeCounts()).containsExactly(242, 1, 3, 10, 256);
        assertThat(List.of(vocab.padId(), vocab.eosId(), vocab.bosId(), vocab.unkId())).containsExactly(0, 1, 2, 3);
        assertThat(vocab.addDummyPrefix()).isTrue();
        assertThat(vocab.byteFallback()).isTrue();
        assertThat(vocab.piece(4)).isEqualTo(SpecialTokens.IM_START);
        assertThat(vocab.type(13)).isEqualTo(PieceType.USER_DEFINED);
        assertThat(vocab.piece(14 + 0x41)).isEqualTo("<0x41>");
        assertThat(vocab.byteValue(14 + 0x41)).isEqualTo(0x41);
        // the first BPE piece 'he' has score -0.0 in the model; the sign bit must survive
        assertThat(Float.floatToRawIntBits(vocab.score(270))).isEqualTo(0x8000_0000);
    }

    @Test
    void sentencePieceModelExportsTheGoldenBlob() throws Exception {
        SentencePieceModel model = SentencePieceModel.read(Golden.mini("tok512.model"));

        assertThat(model.toVocab(dev.needlewb.core.generation.Generation.NEEDLE2).toBytes()).isEqualTo(goldenBlob());
        assertThat(model.modelType()).isEqualTo(SentencePieceModel.BPE);
        assertThat(model.byteFallback()).isTrue();
        assertThat(model.normalizerName()).isEqualTo("identity");
        assertThat(model.addDummyPrefix()).isTrue();
        assertThat(List.of(model.padId(), model.eosId(), model.bosId(), model.unkId())).containsExactly(0, 1, 2, 3);
        assertThat(model.pieces().get(4).type()).isEqualTo(SentencePieceModel.Type.USER_DEFINED);
    }

    @Test
    void truncatedHeaderNamesFileTensorAndOffset() {
        FormatException e = malformed(ErrorKind.TRUNCATED, () -> TokenizerVocab.parse(new byte[10], FILE, TENSOR, OFFSET));
        assertThat(e.file()).isEqualTo(FILE);
        assertThat(e.tensorIndex()).isEqualTo(TENSOR);
        assertThat(e.tensorName()).isEqualTo("tokenizer");
        assertThat(e.offset()).isEqualTo(OFFSET);
    }

    @Test
    void pieceCountBeyondTheBlobIsRefusedBeforeAllocating() {
        byte[] blob = goldenBlob();
        ByteBuffer.wrap(blob).order(ByteOrder.LITTLE_ENDIAN).putInt(0, -1);
        assertThat(malformed(ErrorKind.BAD_HEADER_FIELD, () -> TokenizerVocab.parse(blob, FILE, TENSOR, OFFSET)).offset()).isEqualTo(OFFSET);
    }

    @Test
    void everyFieldProblemIsReportedAtItsAbsoluteOffset() {
        // piece 0 record starts right after the 24-byte header
        assertProblem(blob -> blob.put(24 + 4, (byte) 7), 24 + 4, ErrorKind.BAD_TOKENIZER);
        assertProblem(blob -> blob.putShort(24 + 5, (short) 60000), 24 + 5, ErrorKind.TRUNCATED);
        assertProblem(blob -> blob.put(24 + 7, (byte) 0xC0), 24 + 7, ErrorKind.BAD_TOKENIZER);
        assertProblem(blob -> blob.putFloat(24, Float.NaN), 24, ErrorKind.BAD_TOKENIZER);
        assertProblem(blob -> blob.putInt(16, 512), 4, ErrorKind.BAD_TOKENIZER);
        assertProblem(blob -> blob.put(20, (byte) 2), 20, ErrorKind.BAD_HEADER_FIELD);
        assertProblem(blob -> blob.putShort(22, (short) 1), 22, ErrorKind.NONZERO_RESERVED);
    }

    @Test
    void misspelledBytePieceIsRefused() throws Exception {
        byte[] blob = goldenBlob();
        int at = offsetOfPiece(blob, 14);
        // '<0x00>' -> '<0xG0>'
        blob[at + 7 + 3] = 'G';
        assertThat(malformed(ErrorKind.BAD_TOKENIZER, () -> TokenizerVocab.parse(blob, FILE, TENSOR, 0)).offset()).isEqualTo(at);
    }

    @Test
    void trailingBytesAreRefused() {
        byte[] blob = goldenBlob();
        byte[] longer = java.util.Arrays.copyOf(blob, blob.length + 3);
        assertThat(malformed(ErrorKind.TRAILING_BYTES, () -> TokenizerVocab.parse(longer, FILE, TENSOR, OFFSET)).offset())
                .isEqualTo(OFFSET + blob.length);
    }

    @Test
    void inMemoryVocabularyRoundTrips() throws Exception {
        TokenizerVocab vocab = new TokenizerVocab(List.of("<unk>", "<0x0A>", "é▁", "<x>"),
                new float[] {0f, -0f, -1.5f, 2f},
                List.of(PieceType.UNKNOWN, PieceType.BYTE, PieceType.NORMAL, PieceType.USER_DEFINED),
                0, 0, 0, 0, false, true);
        byte[] bytes = vocab.toBytes();
        TokenizerVocab back = TokenizerVocab.parse(bytes, FILE, TENSOR, 0);
        assertThat(back.toBytes()).isEqualTo(bytes);
        assertThat(back.piece(2)).isEqualTo("é▁");
        assertThat(back.addDummyPrefix()).isFalse();
        assertThat(back.byteValue(1)).isEqualTo(10);
        assertThat(bytes.length).isEqualTo(24 + 4 * 7 + "<unk><0x0A><x>".length() + "é▁".getBytes(StandardCharsets.UTF_8).length);
    }

    private interface Edit {
        void apply(ByteBuffer blob);
    }

    private static void assertProblem(Edit edit, long relativeOffset, ErrorKind kind) {
        byte[] blob = goldenBlob();
        edit.apply(ByteBuffer.wrap(blob).order(ByteOrder.LITTLE_ENDIAN));
        FormatException e = malformed(kind, () -> TokenizerVocab.parse(blob, FILE, TENSOR, OFFSET));
        assertThat(e.tensorIndex()).isEqualTo(TENSOR);
        assertThat(e.offset()).isEqualTo(OFFSET + relativeOffset);
    }

    /** Offset of piece id's record in a well-formed blob. */
    private static int offsetOfPiece(byte[] blob, int id) {
        ByteBuffer b = ByteBuffer.wrap(blob).order(ByteOrder.LITTLE_ENDIAN);
        int off = 24;
        for (int i = 0; i < id; i++) off += 7 + Short.toUnsignedInt(b.getShort(off + 5));
        return off;
    }
}
