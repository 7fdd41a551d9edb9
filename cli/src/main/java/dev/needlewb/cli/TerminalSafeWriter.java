package dev.needlewb.cli;

import java.io.FilterWriter;
import java.io.IOException;
import java.io.Writer;

/**
 * What the command line prints passes through here: text from input files (tensor and tool names,
 * file names, decoded tokens, a file's own error text) may hold control characters, and an escape
 * sequence reaching a terminal can move the cursor, rewrite earlier lines or retitle the window.
 * Every C0 control but tab and newline, DEL, every C1 control and the bidirectional overrides
 * and isolates (which reorder how a line reads) are written as {@code \}{@code uXXXX}: readable,
 * and still valid inside a JSON string, where Jackson leaves C1 and bidi characters raw.
 */
final class TerminalSafeWriter extends FilterWriter {
    TerminalSafeWriter(Writer out) {
        super(out);
    }

    static boolean needsEscape(char c) {
        return (c < 0x20 && c != '\t' && c != '\n') || (c >= 0x7F && c <= 0x9F) || c == '\u061C'
                || c == '\u200E' || c == '\u200F' || (c >= '\u202A' && c <= '\u202E') || (c >= '\u2066' && c <= '\u2069');
    }

    /** {@code text} as this writer prints it. */
    static String escape(String text) {
        StringBuilder sb = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (needsEscape(c)) {
                if (sb == null) sb = new StringBuilder(text.length() + 8).append(text, 0, i);
                sb.append(String.format("\\u%04x", (int) c));
            } else if (sb != null) {
                sb.append(c);
            }
        }
        return sb == null ? text : sb.toString();
    }

    /** {@code text} with its newlines spelled out too: an error message stays one line. */
    static String oneLine(String text) {
        return text.replace("\n", "\\u000a");
    }

    @Override
    public void write(int c) throws IOException {
        if (needsEscape((char) c)) out.write(escape(String.valueOf((char) c)));
        else out.write(c);
    }

    @Override
    public void write(char[] buf, int off, int len) throws IOException {
        write(new String(buf, off, len), 0, len);
    }

    @Override
    public void write(String s, int off, int len) throws IOException {
        out.write(escape(s.substring(off, off + len)));
    }
}
