package dev.needlewb.reports.report;

import java.util.Base64;
import java.util.List;

/** A self-contained HTML page (inline CSS, charts as inline PNG data): it needs no network to render. */
public final class HtmlPage {
    private static final String STYLE = """
            body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1000px;color:#222}
            table{border-collapse:collapse;margin:1em 0;font-size:0.9em}
            th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}
            th{background:#f3f3f3}td.l,th.l{text-align:left}
            .pass{color:#176f2c;font-weight:bold}.fail{color:#b00020;font-weight:bold}
            img.chart{max-width:100%;border:1px solid #eee;margin:0.5em 0}
            code{background:#f6f6f6;padding:0 3px}
            """;

    private final StringBuilder body = new StringBuilder();
    private final String title;

    public HtmlPage(String title) {
        this.title = title;
        appendHeading(1, title);
    }

    public static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** A heading of level 2 or deeper: the page's one h1 is its title. */
    public HtmlPage heading(int level, String text) {
        if (level < 2) throw new IllegalArgumentException("a page has one h1, its title; got another: " + text);
        return appendHeading(level, text);
    }

    private HtmlPage appendHeading(int level, String text) {
        body.append("<h").append(level).append('>').append(escape(text)).append("</h").append(level).append(">\n");
        return this;
    }

    public HtmlPage paragraph(String text) {
        body.append("<p>").append(escape(text)).append("</p>\n");
        return this;
    }

    /** A verdict line styled as pass or fail. */
    public HtmlPage verdict(boolean pass, String text) {
        body.append("<p class=\"").append(pass ? "pass" : "fail").append("\">").append(escape(text)).append("</p>\n");
        return this;
    }

    /** A table; the first column is left-aligned, the others right-aligned. */
    public HtmlPage table(List<String> headers, List<List<String>> rows) {
        body.append("<table><tr>");
        for (int i = 0; i < headers.size(); i++) {
            body.append(i == 0 ? "<th class=\"l\">" : "<th>").append(escape(headers.get(i))).append("</th>");
        }
        body.append("</tr>\n");
        for (List<String> row : rows) {
            body.append("<tr>");
            for (int i = 0; i < row.size(); i++) {
                body.append(i == 0 ? "<td class=\"l\">" : "<td>").append(escape(row.get(i))).append("</td>");
            }
            body.append("</tr>\n");
        }
        body.append("</table>\n");
        return this;
    }

    public HtmlPage chart(String alt, Chart chart) {
        body.append("<img class=\"chart\" alt=\"").append(escape(alt)).append("\" src=\"data:image/png;base64,")
                .append(Base64.getEncoder().encodeToString(chart.png())).append("\">\n");
        return this;
    }

    public String render() {
        return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + escape(title)
                + "</title><style>" + STYLE + "</style></head><body>\n" + body + "</body></html>\n";
    }
}
