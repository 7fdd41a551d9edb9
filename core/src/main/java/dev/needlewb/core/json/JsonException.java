package dev.needlewb.core.json;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;

/**
 * An error in a JSON input at a known place: the source (a file name), the line when known, and
 * the JSON path of the value that is wrong, as {@link JsonOrigin#error} prints them.
 */
public final class JsonException extends WorkbenchException {
    private final String source;
    private final int line;
    private final JsonPath path;

    JsonException(ErrorKind kind, String message, String source, int line, JsonPath path) {
        super(kind, message);
        this.source = source;
        this.line = line;
        this.path = path;
    }

    public String source() { return source; }

    /** The 1-based line of the value in its source; 0 if not known. */
    public int line() { return line; }

    /** The value's path from the document's root. */
    public JsonPath path() { return path; }
}
