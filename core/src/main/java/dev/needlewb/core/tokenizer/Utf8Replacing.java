package dev.needlewb.core.tokenizer;

/**
 * UTF-8 decoding that replaces ill-formed input the way Python's {@code bytes.decode("utf-8",
 * "replace")} does: each maximal subpart of an ill-formed sequence (Unicode 3.9, table 3-7)
 * becomes one U+FFFD and decoding resumes at the first byte that broke the sequence.
 */
final class Utf8Replacing {
    private static final char REPLACEMENT = '\uFFFD';

    private Utf8Replacing() {}

    static String decode(byte[] bytes, int length) {
        StringBuilder out = new StringBuilder(length);
        int i = 0;
        while (i < length) {
            int b0 = bytes[i] & 0xFF;
            if (b0 < 0x80) {
                out.append((char) b0);
                i++;
                continue;
            }
            int need;
            int lo = 0x80;
            int hi = 0xBF;
            int cp;
            if (b0 >= 0xC2 && b0 <= 0xDF) {
                need = 1;
                cp = b0 & 0x1F;
            } else if (b0 >= 0xE0 && b0 <= 0xEF) {
                need = 2;
                cp = b0 & 0x0F;
                if (b0 == 0xE0) lo = 0xA0;
                if (b0 == 0xED) hi = 0x9F;
            } else if (b0 >= 0xF0 && b0 <= 0xF4) {
                need = 3;
                cp = b0 & 0x07;
                if (b0 == 0xF0) lo = 0x90;
                if (b0 == 0xF4) hi = 0x8F;
            } else {
                out.append(REPLACEMENT);
                i++;
                continue;
            }
            int j = i + 1;
            boolean complete = true;
            for (int k = 0; k < need; k++, j++) {
                // only the second byte has a narrowed range; later ones are plain continuations
                int min = k == 0 ? lo : 0x80;
                int max = k == 0 ? hi : 0xBF;
                if (j >= length || (bytes[j] & 0xFF) < min || (bytes[j] & 0xFF) > max) {
                    complete = false;
                    break;
                }
                cp = cp << 6 | (bytes[j] & 0x3F);
            }
            if (complete) out.appendCodePoint(cp);
            else out.append(REPLACEMENT);
            i = j;
        }
        return out.toString();
    }
}
