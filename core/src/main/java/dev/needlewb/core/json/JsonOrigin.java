package dev.needlewb.core.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import dev.needlewb.core.ErrorKind;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a JSON value came from, so an error can name the file, the line and the JSON path of the
 * part that is wrong: either a whole document whose text is kept (the line is looked up when an
 * error needs it) or one line of a JSONL file. {@link #within} moves to a value inside, whose
 * paths are then printed from the document's root.
 */
public final class JsonOrigin {
    private static final JsonFactory FACTORY = JsonFactory.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();

    private final String source;
    private final String text;
    private final int line;
    private final JsonPath base;

    private JsonOrigin(String source, String text, int line, JsonPath base) {
        this.source = source;
        this.text = text;
        this.line = line;
        this.base = base;
    }

    /** A whole JSON document, {@code source} naming it (a file name). */
    public static JsonOrigin document(String source, String text) {
        return new JsonOrigin(source, text, 0, JsonPath.ROOT);
    }

    /** The JSON value on line {@code line} (1-based) of {@code source}. */
    public static JsonOrigin line(String source, int line) {
        return new JsonOrigin(source, null, line, JsonPath.ROOT);
    }

    /** The value at {@code path} below this one. */
    public JsonOrigin within(JsonPath path) {
        return new JsonOrigin(source, text, line, base.append(path));
    }

    /** The error for the value at {@code path} (relative to this origin): {@code source: line N: $.path: what}. */
    public JsonException error(ErrorKind kind, JsonPath path, String what) {
        return error(kind, path, "", what);
    }

    /**
     * The error for the value at {@code path} with {@code note} printed after the path:
     * {@code source: line N: $.path note: what}; the line is left out when unknown.
     */
    public JsonException error(ErrorKind kind, JsonPath path, String note, String what) {
        JsonPath full = base.append(path);
        int at = line > 0 ? line : text == null ? 0 : lineOf(text, full.outerDocument());
        String where = source + (at > 0 ? ": line " + at : "") + ": " + full;
        return new JsonException(kind, where + note + ": " + what, source, at, full);
    }

    /** The 1-based line where the value at {@code path} (or the key naming it) starts in {@code text}; 0 if not found. */
    static int lineOf(String text, JsonPath path) {
        List<Object> target = path.steps();
        List<Object> at = new ArrayList<>();
        // per open container: its next array index, or -1 for an object
        List<Integer> next = new ArrayList<>();
        try (JsonParser p = FACTORY.createParser(text)) {
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (t == JsonToken.FIELD_NAME) {
                    at.set(at.size() - 1, p.currentName());
                    if (at.equals(target)) return p.currentTokenLocation().getLineNr();
                    continue;
                }
                if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                    at.removeLast();
                    next.removeLast();
                    continue;
                }
                if (!next.isEmpty() && next.getLast() >= 0) {
                    at.set(at.size() - 1, next.getLast());
                    next.set(next.size() - 1, next.getLast() + 1);
                }
                if (at.equals(target)) return p.currentTokenLocation().getLineNr();
                if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                    at.add(null);
                    next.add(t == JsonToken.START_ARRAY ? 0 : -1);
                }
            }
        } catch (IOException e) {
            return 0; // text that does not parse is reported by its parser, with its own position
        }
        return 0;
    }
}
