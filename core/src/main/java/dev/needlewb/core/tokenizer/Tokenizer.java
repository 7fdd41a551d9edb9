package dev.needlewb.core.tokenizer;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Encoder and decoder with the semantics of upstream {@code export.RefTokenizer} (SPEC section
 * 6): spaces become U+2581, a dummy U+2581 prefix, user-defined markers split out longest
 * first, greedy score-ordered BPE over code points per segment, byte fallback for what remains
 * unknown. Where several pieces share a spelling the last id wins, as in upstream's dict.
 * Thread-safe once built.
 */
public final class Tokenizer {
    static final char META_SPACE = '\u2581';

    private final TokenizerVocab vocab;
    private final Map<String, Integer> idOfPiece;
    private final int[] idOfByte;
    private final String[] markers;
    private final int maxPieceChars;
    private final byte[][] decodedBytes;

    public Tokenizer(TokenizerVocab vocab) {
        this.vocab = vocab;
        int n = vocab.size();
        idOfPiece = HashMap.newHashMap(n);
        idOfByte = new int[256];
        Arrays.fill(idOfByte, -1);
        decodedBytes = new byte[n][];
        int longest = 0;
        for (int id = 0; id < n; id++) {
            String piece = vocab.piece(id);
            idOfPiece.put(piece, id);
            longest = Math.max(longest, piece.length());
            PieceType type = vocab.type(id);
            if (type == PieceType.BYTE) {
                idOfByte[vocab.byteValue(id)] = id;
                decodedBytes[id] = new byte[] {(byte) vocab.byteValue(id)};
            } else if (type == PieceType.CONTROL || type == PieceType.UNKNOWN) {
                decodedBytes[id] = new byte[0];
            } else {
                decodedBytes[id] = piece.getBytes(StandardCharsets.UTF_8);
            }
        }
        maxPieceChars = longest;
        // stable sort keeps id order among equal lengths, like upstream's sorted(..., reverse=True)
        markers = IntStream.range(0, n).filter(id -> vocab.type(id) == PieceType.USER_DEFINED)
                .mapToObj(vocab::piece)
                .sorted(Comparator.comparingInt(String::length).reversed())
                .toArray(String[]::new);
    }

    public TokenizerVocab vocab() { return vocab; }

    public int bosId() { return vocab.bosId(); }

    public int eosId() { return vocab.eosId(); }

    /**
     * The ids of a text (no BOS). The text must be well-formed UTF-16: an unpaired surrogate
     * has no UTF-8 spelling to fall back to, so it is refused with IllegalArgumentException.
     */
    public int[] encode(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) i++;
            else if (Character.isSurrogate(c)) throw new IllegalArgumentException("text has an unpaired surrogate at index " + i);
        }
        IdSink out = new IdSink(text.length() + 1);
        if (text.isEmpty()) return out.toArray();
        String esc = (vocab.addDummyPrefix() ? String.valueOf(META_SPACE) : "") + text.replace(' ', META_SPACE);
        BpeSegment bpe = new BpeSegment(esc, this);
        int segmentStart = 0;
        int i = 0;
        while (i < esc.length()) {
            String marker = markerAt(esc, i);
            if (marker != null) {
                bpe.encode(segmentStart, i, out);
                out.add(idOfPiece.get(marker));
                i += marker.length();
                segmentStart = i;
            } else {
                i += Character.charCount(esc.codePointAt(i));
            }
        }
        bpe.encode(segmentStart, esc.length(), out);
        return out.toArray();
    }

    private String markerAt(String text, int at) {
        for (String m : markers) {
            if (text.startsWith(m, at)) return m;
        }
        return null;
    }

    /**
     * The text of some ids: byte pieces as raw bytes, control and unknown pieces skipped,
     * ill-formed UTF-8 replaced as Python does, U+2581 back to spaces, one leading space
     * dropped when the vocabulary adds a dummy prefix.
     *
     * @throws WorkbenchException naming the first id outside {@code [0, size)}
     */
    public String decode(int[] ids) throws WorkbenchException {
        int total = 0;
        for (int id : ids) {
            if (id < 0 || id >= decodedBytes.length) {
                throw new WorkbenchException(ErrorKind.BAD_PROMPT, "token id " + id + " is outside the vocabulary (ids 0.." + (decodedBytes.length - 1) + ")");
            }
            total += decodedBytes[id].length;
        }
        byte[] bytes = new byte[total];
        int at = 0;
        for (int id : ids) {
            System.arraycopy(decodedBytes[id], 0, bytes, at, decodedBytes[id].length);
            at += decodedBytes[id].length;
        }
        String text = Utf8Replacing.decode(bytes, total).replace(META_SPACE, ' ');
        return vocab.addDummyPrefix() && text.startsWith(" ") ? text.substring(1) : text;
    }

    /** The id of a piece spelled exactly so, or -1. */
    int idOf(String piece) {
        Integer id = idOfPiece.get(piece);
        return id == null ? -1 : id;
    }

    int maxPieceChars() { return maxPieceChars; }

    /** The id standing for one unknown byte: its byte piece, else unk (upstream would fail). */
    int idOfUnknownByte(int b) {
        return idOfByte[b] >= 0 ? idOfByte[b] : vocab.unkId();
    }

    float score(int id) { return vocab.score(id); }

    /** A growable int list for the ids of one encode call. */
    static final class IdSink {
        private int[] ids;
        private int size;

        IdSink(int capacity) {
            ids = new int[Math.max(capacity, 4)];
        }

        void add(int id) {
            if (size == ids.length) ids = Arrays.copyOf(ids, size * 2);
            ids[size++] = id;
        }

        int[] toArray() {
            return Arrays.copyOf(ids, size);
        }
    }
}
