package dev.needlewb.core.tokenizer;

import static dev.needlewb.core.Refusals.malformed;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.ErrorKind;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Hand-built ModelProto messages: defaults, unknown fields, negative ints, corruption. */
class SentencePieceModelTest {
    private static final Path FILE = Path.of("x.model");

    @Test
    void unknownFieldsOfEveryWireTypeAreSkippedAndNegativeIdsRead() throws Exception {
        byte[] proto = concat(
                piece("<pad>", 0f, 3), piece("</s>", 0f, 3), piece("<s>", 0f, 3), piece("<unk>", 0f, 2),
                field(9, 0, varint(7)), field(10, 1, new byte[8]), field(11, 5, new byte[4]), field(12, 2, varint(0)),
                field(2, 2, concat(field(43, 0, varint(-1L)), field(99, 2, "skip".getBytes(StandardCharsets.UTF_8)))));
        SentencePieceModel model = SentencePieceModel.parse(proto, FILE);

        assertThat(model.pieces()).hasSize(4);
        assertThat(model.padId()).isEqualTo(-1);
        // proto2 defaults where the fields are absent
        assertThat(model.unkId()).isZero();
        assertThat(model.modelType()).isEqualTo(SentencePieceModel.UNIGRAM);
        assertThat(model.addDummyPrefix()).isTrue();
        assertThat(malformed(ErrorKind.BAD_TOKENIZER, () -> model.toVocab(dev.needlewb.core.generation.Generation.NEEDLE2)).file()).isEqualTo(FILE);
    }

    @Test
    void userDefinedPiecesOtherThanTheChatMarkersExportAsNormal() throws Exception {
        byte[] proto = concat(piece("<pad>", 0f, 3), piece("</s>", 0f, 3), piece("<s>", 0f, 3), piece("<unk>", 0f, 2),
                piece("<think>", 0f, 4), piece("<mine>", 0f, 4), piece("unused", -1f, 5), piece("<0x0A>", 0f, 6),
                field(2, 2, concat(field(40, 0, varint(3)), field(41, 0, varint(2)), field(42, 0, varint(1)), field(43, 0, varint(0)))));
        TokenizerVocab vocab = SentencePieceModel.parse(proto, FILE).toVocab(dev.needlewb.core.generation.Generation.NEEDLE2);

        assertThat(vocab.type(4)).isEqualTo(PieceType.USER_DEFINED);
        assertThat(vocab.type(5)).isEqualTo(PieceType.NORMAL);
        assertThat(vocab.type(6)).isEqualTo(PieceType.NORMAL);
        assertThat(vocab.type(7)).isEqualTo(PieceType.BYTE);
        assertThat(vocab.type(0)).isEqualTo(PieceType.CONTROL);
        assertThat(vocab.type(3)).isEqualTo(PieceType.UNKNOWN);
    }

    @Test
    void corruptionIsReportedWithItsOffset() {
        byte[] good = piece("ab", 1f, 1);
        byte[] truncated = java.util.Arrays.copyOf(good, good.length - 1);
        assertThat(malformed(ErrorKind.TRUNCATED, () -> SentencePieceModel.parse(truncated, FILE)).offset()).isEqualTo(1);
        byte[] badType = concat(piece("<pad>", 0f, 9));
        assertThat(malformed(ErrorKind.BAD_TOKENIZER, () -> SentencePieceModel.parse(badType, FILE)))
                .hasMessageContaining("SentencePiece 0: type 9"); // the message names the submessage; no field holds it
        byte[] endlessVarint = {(byte) (9 << 3), (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80,
                (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 1};
        assertThat(malformed(ErrorKind.BAD_TOKENIZER, () -> SentencePieceModel.parse(endlessVarint, FILE)).offset()).isEqualTo(1);
        byte[] group = {(byte) (9 << 3 | 3)};
        assertThat(malformed(ErrorKind.BAD_TOKENIZER, () -> SentencePieceModel.parse(group, FILE)).offset()).isEqualTo(0);
        byte[] badUtf8 = field(1, 2, field(1, 2, new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}));
        assertThat(malformed(ErrorKind.BAD_TOKENIZER, () -> SentencePieceModel.parse(badUtf8, FILE)).offset()).isEqualTo(4);
    }

    static byte[] piece(String text, float score, int type) {
        byte[] f32 = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putFloat(score).array();
        return field(1, 2, concat(field(1, 2, text.getBytes(StandardCharsets.UTF_8)), field(2, 5, f32), field(3, 0, varint(type))));
    }

    static byte[] field(int number, int wireType, byte[] payload) {
        byte[] key = varint((long) number << 3 | wireType);
        return wireType == 2 ? concat(key, varint(payload.length), payload) : concat(key, payload);
    }

    static byte[] varint(long v) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while ((v & ~0x7FL) != 0) {
            out.write((int) (v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.write((int) v);
        return out.toByteArray();
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) out.writeBytes(p);
        return out.toByteArray();
    }
}
