package dev.needlewb.converter.synth;

import dev.needlewb.core.tokenizer.PieceType;
import dev.needlewb.core.tokenizer.SpecialTokens;
import java.util.ArrayList;
import java.util.List;

/**
 * The pieces of a synthetic vocabulary of any size, in id order: pad, eos, bos, unk (the ids upstream
 * hard-codes), the ten chat markers, the 256 byte pieces while the vocabulary allows, then distinct
 * short normal pieces scored {@code -id}. From 270 pieces on it encodes any text (every byte has a
 * piece) and spells every tool call: not a trained vocabulary, but a complete one.
 */
public final class SyntheticVocab {
    /** One piece: its text and type. */
    public record Piece(String text, PieceType type) {}

    /** Specials, markers and every byte piece: the smallest vocabulary that encodes any text. */
    public static final int COMPLETE = 4 + SpecialTokens.CHAT_MARKERS.size() + 256;

    private SyntheticVocab() {}

    /** The {@code vocab} pieces, ids 0 .. vocab - 1, with Needle 2's ten markers. */
    public static List<Piece> pieces(int vocab) {
        return pieces(vocab, SpecialTokens.CHAT_MARKERS);
    }

    /** The {@code vocab} pieces with {@code markers} (user-defined, ids from 4 on, as upstream trains them). */
    public static List<Piece> pieces(int vocab, List<String> markers) {
        List<Piece> pieces = new ArrayList<>(vocab);
        String[] specials = {"<pad>", "</s>", "<s>", "<unk>"};
        for (int i = 0; i < Math.min(vocab, specials.length); i++) {
            pieces.add(new Piece(specials[i], i == SpecialTokens.UNK_ID ? PieceType.UNKNOWN : PieceType.CONTROL));
        }
        for (int i = 0; i < markers.size() && pieces.size() < vocab; i++) {
            pieces.add(new Piece(markers.get(i), PieceType.USER_DEFINED));
        }
        for (int b = 0; b < 256 && pieces.size() < vocab; b++) pieces.add(new Piece(String.format("<0x%02X>", b), PieceType.BYTE));
        for (int n = 0; pieces.size() < vocab; n++) pieces.add(new Piece(shortName(n), PieceType.NORMAL));
        return pieces;
    }

    /** The score of piece {@code id}: {@code -id} for normal pieces (earlier merges first), 0 for the rest. */
    public static float score(Piece piece, int id) {
        return piece.type() == PieceType.NORMAL ? -id : 0f;
    }

    /** The n-th string over [0-9A-Za-z] in length-then-lexicographic order: distinct, short. */
    private static String shortName(int n) {
        String alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        StringBuilder sb = new StringBuilder();
        int k = n + 1;
        while (k > 0) {
            k--;
            sb.append(alphabet.charAt(k % alphabet.length()));
            k /= alphabet.length();
        }
        return sb.reverse().toString();
    }
}
