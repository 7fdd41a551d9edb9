package dev.needlewb.reports.report;

import java.util.List;

/** Builds Markdown text: headings, key-value lists and aligned tables. */
public final class Markdown {
    private final StringBuilder out = new StringBuilder();

    public Markdown heading(int level, String text) {
        if (!out.isEmpty()) out.append('\n');
        out.append("#".repeat(level)).append(' ').append(text).append("\n\n");
        return this;
    }

    public Markdown paragraph(String text) {
        out.append(text).append("\n\n");
        return this;
    }

    public Markdown item(String key, Object value) {
        out.append("- ").append(key).append(": ").append(value).append('\n');
        return this;
    }

    public Markdown blank() {
        out.append('\n');
        return this;
    }

    /** A table; columns whose header starts with '>' are right-aligned (the '>' is dropped). */
    public Markdown table(List<String> headers, List<List<String>> rows) {
        StringBuilder rule = new StringBuilder("|");
        out.append('|');
        for (String h : headers) {
            boolean right = h.startsWith(">");
            out.append(' ').append(right ? h.substring(1) : h).append(" |");
            rule.append(right ? "---:|" : "---|");
        }
        out.append('\n').append(rule).append('\n');
        for (List<String> row : rows) {
            out.append('|');
            for (String cell : row) out.append(' ').append(cell.replace("|", "\\|")).append(" |");
            out.append('\n');
        }
        out.append('\n');
        return this;
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
