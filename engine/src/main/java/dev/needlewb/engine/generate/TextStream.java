package dev.needlewb.engine.generate;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.tokenizer.Tokenizer;
import java.util.Arrays;

/**
 * Turns generated ids into text pieces as they arrive: decodes all ids so far and hands out the
 * new suffix, holding it back while the text ends in U+FFFD (a UTF-8 character whose remaining
 * bytes may come with the next token).
 */
final class TextStream {
    private final Tokenizer tokenizer;
    private int[] ids = new int[16];
    private int count;
    private String emitted = "";

    TextStream(Tokenizer tokenizer) {
        this.tokenizer = tokenizer;
    }

    /** Adds one id; returns the text it completes (empty while held back). */
    String append(int id) throws WorkbenchException {
        if (count == ids.length) ids = Arrays.copyOf(ids, 2 * count);
        ids[count++] = id;
        String text = text();
        return text.endsWith("\uFFFD") ? "" : take(text);
    }

    /** The text still held back at the end (ill-formed UTF-8 stays as U+FFFD). */
    String finish() throws WorkbenchException {
        return take(text());
    }

    int[] ids() {
        return Arrays.copyOf(ids, count);
    }

    String text() throws WorkbenchException {
        return tokenizer.decode(ids());
    }

    private String take(String text) {
        String delta = text.length() > emitted.length() ? text.substring(emitted.length()) : "";
        emitted = text;
        return delta;
    }
}
