package dev.needlewb.core.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;

/** Equality of JSON values as a JSON reader sees them, not as they are spelled. */
public final class JsonValues {
    private JsonValues() {}

    /**
     * Whether {@code a} and {@code b} are the same JSON value: numbers by value ({@code 10 == 10.0 == 1e1}),
     * arrays in order, objects with the same keys in any order, strings, booleans and null as themselves
     * (a boolean is not a number).
     */
    public static boolean same(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            if (!Double.isFinite(a.doubleValue()) || !Double.isFinite(b.doubleValue())) return a.doubleValue() == b.doubleValue();
            return a.decimalValue().compareTo(b.decimalValue()) == 0;
        }
        if (a.isArray() && b.isArray()) {
            if (a.size() != b.size()) return false;
            for (int i = 0; i < a.size(); i++) if (!same(a.get(i), b.get(i))) return false;
            return true;
        }
        if (a.isObject() && b.isObject()) {
            if (a.size() != b.size()) return false;
            for (Iterator<Map.Entry<String, JsonNode>> it = a.properties().iterator(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode other = b.get(e.getKey());
                if (other == null || !same(e.getValue(), other)) return false;
            }
            return true;
        }
        return a.equals(b);
    }
}
