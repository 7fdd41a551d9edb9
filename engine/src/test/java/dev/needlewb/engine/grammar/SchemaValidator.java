package dev.needlewb.engine.grammar;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * An independent check of a parsed call list against the raw tools JSON, written from the JSON
 * Schema text and sharing nothing with the automaton (java.util.regex for patterns, code points
 * for lengths). Returns the problems found, empty when valid.
 */
final class SchemaValidator {
    private SchemaValidator() {}

    static List<String> calls(JsonNode calls, JsonNode tools) {
        List<String> problems = new ArrayList<>();
        if (!calls.isArray()) return List.of("calls are not an array");
        for (JsonNode call : calls) {
            if (!call.isObject() || call.size() != 2 || !call.has("name") || !call.has("arguments")) {
                problems.add("call is not {name, arguments}: " + call);
                continue;
            }
            JsonNode tool = null;
            for (JsonNode t : tools) if (t.get("name").asText().equals(call.get("name").asText())) tool = t;
            if (tool == null || !call.get("name").isTextual()) {
                problems.add("unknown tool " + call.get("name"));
                continue;
            }
            value(call.get("arguments"), tool.get("parameters"), "arguments", problems);
        }
        return problems;
    }

    static void value(JsonNode v, JsonNode schema, String path, List<String> problems) {
        if (schema.has("const") && !same(v, schema.get("const"))) problems.add(path + ": not the const");
        if (schema.has("enum")) {
            boolean found = false;
            for (JsonNode e : schema.get("enum")) found |= same(v, e);
            if (!found) problems.add(path + ": not in enum");
        }
        String type = schema.has("type") ? schema.get("type").asText() : "";
        switch (type) {
            case "string" -> {
                if (!v.isTextual()) { problems.add(path + ": not a string"); return; }
                String s = v.textValue();
                int n = s.codePointCount(0, s.length());
                if (schema.has("minLength") && n < schema.get("minLength").asInt()) problems.add(path + ": shorter than minLength");
                if (schema.has("maxLength") && n > schema.get("maxLength").asInt()) problems.add(path + ": longer than maxLength");
                if (schema.has("pattern") && !Pattern.compile(schema.get("pattern").asText()).matcher(s).find()) problems.add(path + ": pattern fails");
            }
            case "integer", "number" -> {
                if (!v.isNumber() || (type.equals("integer") && !v.isIntegralNumber())) { problems.add(path + ": not an " + type); return; }
                BigDecimal d = v.decimalValue();
                if (schema.has("minimum") && d.compareTo(schema.get("minimum").decimalValue()) < 0) problems.add(path + ": below minimum");
                if (schema.has("maximum") && d.compareTo(schema.get("maximum").decimalValue()) > 0) problems.add(path + ": above maximum");
            }
            case "boolean" -> { if (!v.isBoolean()) problems.add(path + ": not a boolean"); }
            case "null" -> { if (!v.isNull()) problems.add(path + ": not null"); }
            case "array" -> {
                if (!v.isArray()) { problems.add(path + ": not an array"); return; }
                if (schema.has("minItems") && v.size() < schema.get("minItems").asInt()) problems.add(path + ": too few items");
                if (schema.has("maxItems") && v.size() > schema.get("maxItems").asInt()) problems.add(path + ": too many items");
                for (int i = 0; i < v.size(); i++) value(v.get(i), schema.get("items"), path + "[" + i + "]", problems);
            }
            case "object" -> {
                if (!v.isObject()) { problems.add(path + ": not an object"); return; }
                JsonNode props = schema.has("properties") ? schema.get("properties") : com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
                for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    if (!props.has(e.getKey())) problems.add(path + ": undeclared key " + e.getKey());
                    else value(e.getValue(), props.get(e.getKey()), path + "." + e.getKey(), problems);
                }
                if (schema.has("required")) for (JsonNode r : schema.get("required")) {
                    if (!v.has(r.asText())) problems.add(path + ": missing required " + r.asText());
                }
            }
            default -> { }
        }
    }

    private static boolean same(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) return a.decimalValue().compareTo(b.decimalValue()) == 0;
        return a.equals(b);
    }
}
