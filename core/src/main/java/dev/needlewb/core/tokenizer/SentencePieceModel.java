package dev.needlewb.core.tokenizer;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import dev.needlewb.core.generation.Generation;

/**
 * The parts of a SentencePiece {@code .model} (a serialized {@code sentencepiece.ModelProto})
 * that the Needle exporter reads: the pieces, the trainer's special ids and byte fallback, the
 * normalizer's dummy prefix. Unknown fields are skipped; a repeated singular message is merged
 * and a repeated scalar keeps its last value, as protobuf does.
 */
public final class SentencePieceModel {
    /** {@code SentencePiece.Type} of sentencepiece_model.proto (wire values 1..6). */
    public enum Type { NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE }

    /** One piece; {@code offset} is where its record starts in the file (for error messages). */
    public record Piece(String text, float score, Type type, long offset) {}

    /** {@code TrainerSpec.model_type} values. */
    public static final int UNIGRAM = 1;
    public static final int BPE = 2;

    // ModelProto
    private static final int MODEL_PIECES = 1;
    private static final int MODEL_TRAINER_SPEC = 2;
    private static final int MODEL_NORMALIZER_SPEC = 3;
    // ModelProto.SentencePiece
    private static final int PIECE_TEXT = 1;
    private static final int PIECE_SCORE = 2;
    private static final int PIECE_TYPE = 3;
    // TrainerSpec
    private static final int TRAINER_MODEL_TYPE = 3;
    private static final int TRAINER_BYTE_FALLBACK = 35;
    private static final int TRAINER_UNK_ID = 40;
    private static final int TRAINER_BOS_ID = 41;
    private static final int TRAINER_EOS_ID = 42;
    private static final int TRAINER_PAD_ID = 43;
    // NormalizerSpec
    private static final int NORMALIZER_NAME = 1;
    private static final int NORMALIZER_ADD_DUMMY_PREFIX = 3;

    private final Path file;
    private final List<Piece> pieces = new ArrayList<>();
    // proto2 defaults of sentencepiece_model.proto
    private int modelType = UNIGRAM;
    private boolean byteFallback = false;
    private int unkId = 0;
    private int bosId = 1;
    private int eosId = 2;
    private int padId = -1;
    private String normalizerName = "";
    private boolean addDummyPrefix = true;

    private SentencePieceModel(Path file) {
        this.file = file;
    }

    /** Reads and parses a {@code .model} file. */
    public static SentencePieceModel read(Path file) throws WorkbenchException {
        try {
            long size = Files.size(file);
            if (size > Integer.MAX_VALUE - 8) throw new FormatException(ErrorKind.TOO_LARGE, file, 0, "ModelProto: file of " + size + " bytes is too large");
            return parse(Files.readAllBytes(file), file);
        } catch (IOException e) {
            throw WorkbenchException.cannotRead(file, e);
        }
    }

    /** Parses a serialized ModelProto; {@code file} only labels errors. */
    public static SentencePieceModel parse(byte[] data, Path file) throws FormatException {
        SentencePieceModel model = new SentencePieceModel(file);
        ProtoReader top = new ProtoReader(data, file, "ModelProto", 0, data.length);
        while (top.next()) {
            switch (top.fieldNumber()) {
                case MODEL_PIECES -> model.pieces.add(readPiece(top, model.pieces.size()));
                case MODEL_TRAINER_SPEC -> model.readTrainerSpec(top.readMessage("TrainerSpec"));
                case MODEL_NORMALIZER_SPEC -> model.readNormalizerSpec(top.readMessage("NormalizerSpec"));
                default -> top.skip();
            }
        }
        if (model.pieces.isEmpty()) throw new FormatException(ErrorKind.BAD_TOKENIZER, file, 0, "ModelProto: no pieces");
        return model;
    }

    private static Piece readPiece(ProtoReader top, int id) throws FormatException {
        int offset = top.fieldStart();
        ProtoReader r = top.readMessage("SentencePiece " + id);
        String text = "";
        float score = 0f;
        Type type = Type.NORMAL;
        while (r.next()) {
            switch (r.fieldNumber()) {
                case PIECE_TEXT -> text = r.readString();
                case PIECE_SCORE -> score = r.readFloat();
                case PIECE_TYPE -> {
                    int at = r.fieldStart();
                    int v = r.readInt32();
                    if (v < 1 || v > Type.values().length) throw r.error(ErrorKind.BAD_TOKENIZER, at, "type " + v + " is not one of 1..6");
                    type = Type.values()[v - 1];
                }
                default -> r.skip();
            }
        }
        return new Piece(text, score, type, offset);
    }

    private void readTrainerSpec(ProtoReader r) throws FormatException {
        while (r.next()) {
            switch (r.fieldNumber()) {
                case TRAINER_MODEL_TYPE -> modelType = r.readInt32();
                case TRAINER_BYTE_FALLBACK -> byteFallback = r.readBool();
                case TRAINER_UNK_ID -> unkId = r.readInt32();
                case TRAINER_BOS_ID -> bosId = r.readInt32();
                case TRAINER_EOS_ID -> eosId = r.readInt32();
                case TRAINER_PAD_ID -> padId = r.readInt32();
                default -> r.skip();
            }
        }
    }

    private void readNormalizerSpec(ProtoReader r) throws FormatException {
        while (r.next()) {
            switch (r.fieldNumber()) {
                case NORMALIZER_NAME -> normalizerName = r.readString();
                case NORMALIZER_ADD_DUMMY_PREFIX -> addDummyPrefix = r.readBool();
                default -> r.skip();
            }
        }
    }

    /**
     * The vocabulary {@code generation}'s {@code export._tokenizer_blob} writes for this model:
     * types CONTROL, UNKNOWN, BYTE from the proto, USER_DEFINED for exactly that generation's
     * chat markers, NORMAL for everything else (user-defined non-markers and unused pieces
     * included); ids pad 0, eos 1, bos 2, unk 3 and byte_fallback on, as upstream hard-codes
     * them; add_dummy_prefix as {@link TokenizerRules} says. A model whose own special ids
     * differ, which repeats a piece, or whose pieces cannot be stored is refused rather than
     * exported into a blob that would silently disagree with it.
     */
    public TokenizerVocab toVocab(Generation generation) throws FormatException {
        TokenizerRules rules = TokenizerRules.of(generation);
        int[][] ids = {{padId, SpecialTokens.PAD_ID}, {eosId, SpecialTokens.EOS_ID},
                {bosId, SpecialTokens.BOS_ID}, {unkId, SpecialTokens.UNK_ID}};
        String[] names = {"pad_id", "eos_id", "bos_id", "unk_id"};
        for (int k = 0; k < ids.length; k++) {
            if (ids[k][0] != ids[k][1]) {
                throw new FormatException(ErrorKind.BAD_TOKENIZER, file, FormatException.NO_OFFSET, "TrainerSpec " + names[k] + " is " + ids[k][0]
                        + " but Needle hard-codes " + ids[k][1] + " (pad 0, eos 1, bos 2, unk 3)");
            }
        }
        if (pieces.size() <= SpecialTokens.UNK_ID) {
            throw new FormatException(ErrorKind.BAD_TOKENIZER, file, 0, "ModelProto: " + pieces.size() + " pieces cannot hold the special ids 0..3");
        }
        Piece unk = pieces.get(SpecialTokens.UNK_ID);
        if (unk.type() != Type.UNKNOWN) {
            throw new FormatException(ErrorKind.BAD_TOKENIZER, file, unk.offset(), "ModelProto: piece 3 ('" + unk.text() + "') must be UNKNOWN, is " + unk.type());
        }
        Set<String> markers = new HashSet<>(rules.markers());
        Map<String, Integer> seen = new HashMap<>();
        List<String> texts = new ArrayList<>(pieces.size());
        List<PieceType> types = new ArrayList<>(pieces.size());
        float[] scores = new float[pieces.size()];
        for (int i = 0; i < pieces.size(); i++) {
            Piece p = pieces.get(i);
            Integer earlier = seen.putIfAbsent(p.text(), i);
            if (earlier != null) {
                throw new FormatException(ErrorKind.BAD_TOKENIZER, file, p.offset(), "ModelProto: piece " + i + " repeats piece " + earlier + " ('" + p.text() + "')");
            }
            PieceType type = switch (p.type()) {
                case CONTROL -> PieceType.CONTROL;
                case UNKNOWN -> PieceType.UNKNOWN;
                case BYTE -> PieceType.BYTE;
                default -> markers.contains(p.text()) ? PieceType.USER_DEFINED : PieceType.NORMAL;
            };
            String problem = TokenizerVocab.pieceProblem(p.text(), type, p.score());
            if (problem != null) throw new FormatException(ErrorKind.BAD_TOKENIZER, file, p.offset(), "ModelProto: piece " + i + ": " + problem);
            texts.add(p.text());
            types.add(type);
            scores[i] = p.score();
        }
        TokenizerVocab asModel = new TokenizerVocab(texts, scores, types, SpecialTokens.PAD_ID, SpecialTokens.EOS_ID,
                SpecialTokens.BOS_ID, SpecialTokens.UNK_ID, addDummyPrefix, true);
        boolean dummy = !rules.detectsDummyPrefix() || encodesADummyPrefix(asModel);
        return new TokenizerVocab(texts, scores, types, SpecialTokens.PAD_ID, SpecialTokens.EOS_ID,
                SpecialTokens.BOS_ID, SpecialTokens.UNK_ID, dummy, true);
    }

    /**
     * Needle 3's detection: whether the first piece of {@code Encode("a")} starts with U+2581, the
     * model encoding with its own normalizer flag (a model without a U+2581 piece falls back to
     * bytes or unk, and answers no).
     */
    private static boolean encodesADummyPrefix(TokenizerVocab asModel) {
        int[] ids = new Tokenizer(asModel).encode("a");
        return ids.length > 0 && asModel.piece(ids[0]).startsWith(String.valueOf(Tokenizer.META_SPACE));
    }

    public List<Piece> pieces() { return List.copyOf(pieces); }

    /** {@code TrainerSpec.model_type}: {@link #UNIGRAM}, {@link #BPE}, 3 word, 4 char. */
    public int modelType() { return modelType; }

    public boolean byteFallback() { return byteFallback; }

    public int unkId() { return unkId; }

    public int bosId() { return bosId; }

    public int eosId() { return eosId; }

    /** -1 when the model has no pad piece (the proto default). */
    public int padId() { return padId; }

    public String normalizerName() { return normalizerName; }

    public boolean addDummyPrefix() { return addDummyPrefix; }
}
