package dev.needlewb.core.tokenizer;

import dev.needlewb.core.FormatException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * The tokenizer a {@code .cact} carries as its RAW "tokenizer" blob (SPEC section 6): the pieces
 * in id order with their scores and types, the four special ids and the two encoder flags.
 * Immutable; {@link #toBytes()} writes the blob layout back byte for byte.
 */
public final class TokenizerVocab {
    /** The tensor name of the blob in the {@code .cact} directory. */
    public static final String TENSOR_NAME = "tokenizer";
    /** Header {@code <IIIIIBBH}: n_pieces, pad, eos, bos, unk, add_dummy_prefix, byte_fallback, reserved. */
    static final int HEADER_BYTES = 24;
    /** Record head {@code <fBH}: score, type, UTF-8 length. */
    static final int RECORD_HEAD_BYTES = 7;
    /** The u16 length field bounds a piece's UTF-8 spelling. */
    static final int MAX_PIECE_BYTES = 0xFFFF;

    private final String[] pieces;
    private final float[] scores;
    private final PieceType[] types;
    private final int padId;
    private final int eosId;
    private final int bosId;
    private final int unkId;
    private final boolean addDummyPrefix;
    private final boolean byteFallback;

    /**
     * A vocabulary from in-memory parts; throws {@link IllegalArgumentException} if a piece breaks
     * a rule of {@link #pieceProblem} or an id is outside the vocabulary.
     */
    public TokenizerVocab(List<String> pieces, float[] scores, List<PieceType> types,
                          int padId, int eosId, int bosId, int unkId,
                          boolean addDummyPrefix, boolean byteFallback) {
        int n = pieces.size();
        if (scores.length != n || types.size() != n) {
            throw new IllegalArgumentException("pieces " + n + ", scores " + scores.length + ", types " + types.size());
        }
        this.pieces = pieces.toArray(String[]::new);
        this.scores = scores.clone();
        this.types = types.toArray(PieceType[]::new);
        for (int i = 0; i < n; i++) {
            String problem = pieceProblem(this.pieces[i], this.types[i], this.scores[i]);
            if (problem != null) throw new IllegalArgumentException("piece " + i + ": " + problem);
        }
        String idProblem = idProblem(n, padId, eosId, bosId, unkId);
        if (idProblem != null) throw new IllegalArgumentException(idProblem);
        this.padId = padId;
        this.eosId = eosId;
        this.bosId = bosId;
        this.unkId = unkId;
        this.addDummyPrefix = addDummyPrefix;
        this.byteFallback = byteFallback;
    }

    /**
     * Parses and fully validates a RAW tokenizer blob. {@code file}, {@code tensorIndex} and
     * {@code blobOffset} (the blob's absolute position in the file) only label errors.
     */
    public static TokenizerVocab parse(MemorySegment blob, Path file, int tensorIndex, long blobOffset)
            throws FormatException {
        return new TokenizerBlobParser(blob, file, tensorIndex, blobOffset).parse();
    }

    /** {@link #parse(MemorySegment, Path, int, long)} over a byte array. */
    public static TokenizerVocab parse(byte[] blob, Path file, int tensorIndex, long blobOffset)
            throws FormatException {
        return parse(MemorySegment.ofArray(blob), file, tensorIndex, blobOffset);
    }

    /**
     * Why a piece cannot be stored or used, or null if it is fine: its UTF-8 spelling must fit
     * the u16 length, its score must not be NaN (merges compare scores), a byte piece must be
     * spelled {@code <0xXX>}, a user-defined marker must not be empty (it would match forever).
     */
    static String pieceProblem(String piece, PieceType type, float score) {
        if (Float.isNaN(score)) return "score is NaN";
        if (utf8Length(piece) > MAX_PIECE_BYTES) return "spelling longer than " + MAX_PIECE_BYTES + " UTF-8 bytes";
        if (type == PieceType.BYTE && byteValueOf(piece) < 0) {
            return "byte piece '" + piece + "' is not spelled <0xXX>";
        }
        if (type == PieceType.USER_DEFINED && piece.isEmpty()) return "user-defined piece is empty";
        return null;
    }

    /** Why the special ids do not fit a vocabulary of n pieces, or null if they do. */
    static String idProblem(long n, long padId, long eosId, long bosId, long unkId) {
        long[] ids = {padId, eosId, bosId, unkId};
        String[] names = {"pad", "eos", "bos", "unk"};
        for (int k = 0; k < ids.length; k++) {
            if (ids[k] < 0 || ids[k] >= n) {
                return names[k] + "_id " + ids[k] + " outside the vocabulary of " + n + " pieces";
            }
        }
        return null;
    }

    /** The byte a piece spelled {@code <0xXX>} (either hex case) stands for, or -1. */
    static int byteValueOf(String piece) {
        if (piece.length() != 6 || !piece.startsWith("<0x") || piece.charAt(5) != '>') return -1;
        int hi = hexDigit(piece.charAt(3));
        int lo = hexDigit(piece.charAt(4));
        return hi < 0 || lo < 0 ? -1 : hi << 4 | lo;
    }

    private static int hexDigit(char c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }

    private static int utf8Length(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) n += 1;
            else if (c < 0x800) n += 2;
            else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else n += 3;
        }
        return n;
    }

    /** The RAW blob: header then one record per piece, exactly the layout {@link #parse} reads. */
    public byte[] toBytes() {
        byte[][] spelled = new byte[pieces.length][];
        int total = HEADER_BYTES;
        for (int i = 0; i < pieces.length; i++) {
            spelled[i] = pieces[i].getBytes(StandardCharsets.UTF_8);
            total += RECORD_HEAD_BYTES + spelled[i].length;
        }
        ByteBuffer out = ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN);
        out.putInt(pieces.length).putInt(padId).putInt(eosId).putInt(bosId).putInt(unkId);
        out.put((byte) (addDummyPrefix ? 1 : 0)).put((byte) (byteFallback ? 1 : 0)).putShort((short) 0);
        for (int i = 0; i < pieces.length; i++) {
            // raw bits keep -0.0 scores exactly as upstream's struct.pack wrote them
            out.putInt(Float.floatToRawIntBits(scores[i]));
            out.put((byte) types[i].code()).putShort((short) spelled[i].length).put(spelled[i]);
        }
        return out.array();
    }

    public int size() { return pieces.length; }

    public String piece(int id) { return pieces[id]; }

    public float score(int id) { return scores[id]; }

    public PieceType type(int id) { return types[id]; }

    /** The byte value of a {@link PieceType#BYTE} piece. */
    public int byteValue(int id) {
        if (types[id] != PieceType.BYTE) throw new IllegalArgumentException("piece " + id + " is not a byte piece");
        return byteValueOf(pieces[id]);
    }

    public int padId() { return padId; }

    public int eosId() { return eosId; }

    public int bosId() { return bosId; }

    public int unkId() { return unkId; }

    public boolean addDummyPrefix() { return addDummyPrefix; }

    public boolean byteFallback() { return byteFallback; }

    /** How many pieces have each type, indexed by {@link PieceType#code()}. */
    public int[] typeCounts() {
        int[] counts = new int[PieceType.values().length];
        for (PieceType t : types) counts[t.code()]++;
        return counts;
    }
}
