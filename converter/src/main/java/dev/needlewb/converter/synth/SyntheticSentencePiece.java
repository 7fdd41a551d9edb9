package dev.needlewb.converter.synth;

import dev.needlewb.core.tokenizer.PieceType;
import dev.needlewb.core.tokenizer.SpecialTokens;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A SentencePiece {@code .model} file (a serialized {@code ModelProto}) of {@link SyntheticVocab}'s
 * pieces: what {@code convert --tokenizer} takes for a checkpoint of any vocabulary size, as the
 * trained 8192-piece model is for the released one. Only the fields the workbench reads are written:
 * the pieces (text, score, type), and a BPE trainer spec with byte fallback and Needle's special ids.
 */
public final class SyntheticSentencePiece {
    private static final int WIRE_VARINT = 0, WIRE_FIXED32 = 5, WIRE_BYTES = 2;
    /** sentencepiece_model.proto field numbers. */
    private static final int MODEL_PIECES = 1, MODEL_TRAINER_SPEC = 2, MODEL_NORMALIZER_SPEC = 3;
    private static final int PIECE_TEXT = 1, PIECE_SCORE = 2, PIECE_TYPE = 3;
    private static final int TRAINER_MODEL_TYPE = 3, TRAINER_BYTE_FALLBACK = 35;
    private static final int TRAINER_UNK_ID = 40, TRAINER_BOS_ID = 41, TRAINER_EOS_ID = 42, TRAINER_PAD_ID = 43;
    private static final int NORMALIZER_NAME = 1, NORMALIZER_ADD_DUMMY_PREFIX = 3;
    private static final int BPE = 2;

    private SyntheticSentencePiece() {}

    /** The model file's bytes for a {@code vocab}-piece vocabulary. */
    public static byte[] of(int vocab) {
        return of(vocab, SpecialTokens.CHAT_MARKERS, true);
    }

    /** The same with {@code markers} as its user-defined pieces and the normalizer's add_dummy_prefix. */
    public static byte[] of(int vocab, List<String> markers, boolean addDummyPrefix) {
        Proto model = new Proto();
        List<SyntheticVocab.Piece> pieces = SyntheticVocab.pieces(vocab, markers);
        for (int id = 0; id < pieces.size(); id++) {
            SyntheticVocab.Piece p = pieces.get(id);
            Proto piece = new Proto();
            piece.bytes(PIECE_TEXT, p.text().getBytes(StandardCharsets.UTF_8));
            piece.fixed32(PIECE_SCORE, Float.floatToRawIntBits(SyntheticVocab.score(p, id)));
            piece.varint(PIECE_TYPE, protoType(p.type()));
            model.bytes(MODEL_PIECES, piece.toByteArray());
        }
        Proto trainer = new Proto();
        trainer.varint(TRAINER_MODEL_TYPE, BPE);
        trainer.varint(TRAINER_BYTE_FALLBACK, 1);
        trainer.varint(TRAINER_UNK_ID, SpecialTokens.UNK_ID);
        trainer.varint(TRAINER_BOS_ID, SpecialTokens.BOS_ID);
        trainer.varint(TRAINER_EOS_ID, SpecialTokens.EOS_ID);
        trainer.varint(TRAINER_PAD_ID, SpecialTokens.PAD_ID);
        model.bytes(MODEL_TRAINER_SPEC, trainer.toByteArray());
        Proto normalizer = new Proto();
        normalizer.bytes(NORMALIZER_NAME, "identity".getBytes(StandardCharsets.UTF_8));
        normalizer.varint(NORMALIZER_ADD_DUMMY_PREFIX, addDummyPrefix ? 1 : 0);
        model.bytes(MODEL_NORMALIZER_SPEC, normalizer.toByteArray());
        return model.toByteArray();
    }

    /** {@code SentencePiece.Type}: NORMAL 1, UNKNOWN 2, CONTROL 3, USER_DEFINED 4, BYTE 6. */
    private static int protoType(PieceType type) {
        return switch (type) {
            case NORMAL -> 1;
            case UNKNOWN -> 2;
            case CONTROL -> 3;
            case USER_DEFINED -> 4;
            case BYTE -> 6;
        };
    }

    /** A protobuf message being written: fields in the order added. */
    private static final class Proto {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        void varint(int field, long value) {
            key(field, WIRE_VARINT);
            raw(value);
        }

        void fixed32(int field, int value) {
            key(field, WIRE_FIXED32);
            for (int i = 0; i < 4; i++) out.write(value >>> (8 * i));
        }

        void bytes(int field, byte[] value) {
            key(field, WIRE_BYTES);
            raw(value.length);
            out.writeBytes(value);
        }

        byte[] toByteArray() {
            return out.toByteArray();
        }

        private void key(int field, int wire) {
            raw((long) field << 3 | wire);
        }

        private void raw(long value) {
            while ((value & ~0x7FL) != 0) {
                out.write((int) (value & 0x7F) | 0x80);
                value >>>= 7;
            }
            out.write((int) value);
        }
    }
}
