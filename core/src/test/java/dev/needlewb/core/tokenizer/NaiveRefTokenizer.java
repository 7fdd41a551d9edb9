package dev.needlewb.core.tokenizer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A line-by-line Java rendering of upstream RefTokenizer.encode (quadratic BPE over a list of
 * strings), kept deliberately naive as the oracle for the heap-based {@link Tokenizer}.
 */
final class NaiveRefTokenizer {
    private final TokenizerVocab vocab;
    private final Map<String, Integer> p2id = new HashMap<>();
    private final Map<Integer, Integer> byteId = new HashMap<>();
    private final List<String> markers = new ArrayList<>();

    NaiveRefTokenizer(TokenizerVocab vocab) {
        this.vocab = vocab;
        for (int i = 0; i < vocab.size(); i++) {
            p2id.put(vocab.piece(i), i);
            if (vocab.type(i) == PieceType.BYTE) byteId.put(vocab.byteValue(i), i);
            if (vocab.type(i) == PieceType.USER_DEFINED) markers.add(vocab.piece(i));
        }
        markers.sort(Comparator.comparingInt((String m) -> m.codePointCount(0, m.length())).reversed());
    }

    List<Integer> encode(String text) {
        List<Integer> ids = new ArrayList<>();
        if (text.isEmpty()) return ids;
        String esc = text.replace(" ", "\u2581");
        if (vocab.addDummyPrefix()) esc = "\u2581" + esc;
        StringBuilder buf = new StringBuilder();
        int i = 0;
        while (i < esc.length()) {
            String marker = null;
            for (String m : markers) {
                if (esc.startsWith(m, i)) {
                    marker = m;
                    break;
                }
            }
            if (marker != null) {
                ids.addAll(bpe(buf.toString()));
                buf.setLength(0);
                ids.add(p2id.get(marker));
                i += marker.length();
            } else {
                int cp = esc.codePointAt(i);
                buf.appendCodePoint(cp);
                i += Character.charCount(cp);
            }
        }
        ids.addAll(bpe(buf.toString()));
        return ids;
    }

    private List<Integer> bpe(String seg) {
        List<String> syms = new ArrayList<>();
        seg.codePoints().forEach(cp -> syms.add(new String(Character.toChars(cp))));
        while (syms.size() > 1) {
            Float bestScore = null;
            int bestJ = -1;
            for (int j = 0; j < syms.size() - 1; j++) {
                Integer idx = p2id.get(syms.get(j) + syms.get(j + 1));
                if (idx != null && (bestScore == null || vocab.score(idx) > bestScore)) {
                    bestScore = vocab.score(idx);
                    bestJ = j;
                }
            }
            if (bestJ < 0) break;
            syms.set(bestJ, syms.get(bestJ) + syms.remove(bestJ + 1));
        }
        List<Integer> ids = new ArrayList<>();
        for (String s : syms) {
            Integer idx = p2id.get(s);
            if (idx != null) {
                ids.add(idx);
            } else if (vocab.byteFallback()) {
                for (byte b : s.getBytes(StandardCharsets.UTF_8)) ids.add(byteId.getOrDefault(b & 0xFF, vocab.unkId()));
            } else {
                ids.add(vocab.unkId());
            }
        }
        return ids;
    }
}
