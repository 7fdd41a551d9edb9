package dev.needlewb.core.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.Locale;

/** How messages show JSON input: a text as a JSON string literal (so it cannot carry control characters), a value by its kind. */
public final class JsonText {
    private JsonText() {}

    public static String quoted(String s) {
        return TextNode.valueOf(s).toString();
    }

    /** "object", "array", "string", "number", "boolean", "null". */
    public static String kind(JsonNode node) {
        return node.getNodeType().name().toLowerCase(Locale.ROOT);
    }
}
