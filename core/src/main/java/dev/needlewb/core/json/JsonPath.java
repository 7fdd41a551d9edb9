package dev.needlewb.core.json;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Where a value sits in a JSON document, printed the way a user finds it: {@code $[0].parameters.properties.city},
 * a key that is not a plain name quoted ({@code $.properties["zip code"]}), and a string holding JSON text marked
 * {@code (text)} before the path inside it ({@code $.tools(text)[0].name}). Immutable.
 */
public final class JsonPath {
    public static final JsonPath ROOT = new JsonPath(List.of());
    private static final Pattern PLAIN_KEY = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*");
    /** The segment that enters a string's JSON text. */
    private static final Object TEXT = new Object();

    /** String keys, Integer indices, or {@link #TEXT}. */
    private final List<Object> segments;

    private JsonPath(List<Object> segments) {
        this.segments = segments;
    }

    public JsonPath key(String key) {
        return with(key);
    }

    public JsonPath index(int index) {
        return with(index);
    }

    /** Into the JSON text a string value holds. */
    public JsonPath text() {
        return with(TEXT);
    }

    /** This path followed by {@code relative} (a path from {@link #ROOT}). */
    public JsonPath append(JsonPath relative) {
        List<Object> all = new ArrayList<>(segments);
        all.addAll(relative.segments);
        return new JsonPath(List.copyOf(all));
    }

    private JsonPath with(Object segment) {
        List<Object> all = new ArrayList<>(segments);
        all.add(segment);
        return new JsonPath(List.copyOf(all));
    }

    public int size() {
        return segments.size();
    }

    /** Segment {@code i} if it is a key, else null. */
    public String keyAt(int i) {
        return segments.get(i) instanceof String k ? k : null;
    }

    /** The path from segment {@code i} on, as a path from {@link #ROOT}. */
    public JsonPath from(int i) {
        return new JsonPath(segments.subList(i, segments.size()));
    }

    /** The part of this path inside its outermost document: up to a string whose JSON text it enters. */
    JsonPath outerDocument() {
        int text = segments.indexOf(TEXT);
        return text < 0 ? this : new JsonPath(segments.subList(0, text));
    }

    /** The keys (String) and indices (Integer) of a path inside one document. */
    List<Object> steps() {
        return segments;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder("$");
        for (Object s : segments) {
            if (s == TEXT) out.append("(text)");
            else if (s instanceof Integer i) out.append('[').append(i).append(']');
            else if (PLAIN_KEY.matcher((String) s).matches()) out.append('.').append(s);
            else out.append('[').append(JsonText.quoted((String) s)).append(']');
        }
        return out.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JsonPath p && p.segments.equals(segments);
    }

    @Override
    public int hashCode() {
        return segments.hashCode();
    }
}
