package dev.needlewb.engine.grammar;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.core.json.JsonValues;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * An independent check of a parsed call list against tools in upstream's shape, written from the
 * JSON Schema text and sharing nothing with the automaton: {@code type} (one or a list), {@code enum},
 * {@code const}, {@code anyOf} (one option holds), {@code oneOf} (exactly one holds), {@code $ref}
 * (a JSON pointer into the tool's parameters), string lengths in code points and {@code pattern}
 * with java.util.regex, number bounds, array items and counts, object properties and required keys,
 * and the grammar's own promise that an object holds declared keys only. Returns the problems found,
 * empty when valid.
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
            JsonNode parameters = tool.get("parameters");
            value(call.get("arguments"), parameters, parameters, "arguments", problems);
        }
        return problems;
    }

    /** Adds the ways {@code v} fails {@code schema} ({@code root}: the parameters {@code $ref}s point into). */
    static void value(JsonNode v, JsonNode schema, JsonNode root, String path, List<String> problems) {
        if (schema.has("$ref")) {
            value(v, root.at(JsonPointer.compile(schema.get("$ref").asText().substring(1))), root, path, problems);
            return;
        }
        if (schema.has("anyOf") || schema.has("oneOf")) {
            JsonNode options = schema.has("anyOf") ? schema.get("anyOf") : schema.get("oneOf");
            int holding = 0;
            for (JsonNode option : options) if (problems(v, option, root).isEmpty()) holding++;
            if (holding == 0) problems.add(path + ": matches no option of " + (schema.has("anyOf") ? "anyOf" : "oneOf"));
            if (schema.has("oneOf") && holding > 1) problems.add(path + ": matches " + holding + " options of oneOf");
            return;
        }
        if (schema.has("const") && !JsonValues.same(v, schema.get("const"))) problems.add(path + ": not the const");
        if (schema.has("enum")) {
            boolean found = false;
            for (JsonNode e : schema.get("enum")) found |= JsonValues.same(v, e);
            if (!found) problems.add(path + ": not in enum");
        }
        List<String> types = new ArrayList<>();
        if (schema.has("type")) {
            if (schema.get("type").isArray()) schema.get("type").forEach(t -> types.add(t.asText()));
            else types.add(schema.get("type").asText());
        }
        if (!types.isEmpty() && types.stream().noneMatch(t -> hasType(v, t))) {
            problems.add(path + ": " + v + " is none of " + types);
            return;
        }
        if (v.isTextual()) {
            String s = v.textValue();
            int n = s.codePointCount(0, s.length());
            if (schema.has("minLength") && n < schema.get("minLength").asLong()) problems.add(path + ": shorter than minLength");
            if (schema.has("maxLength") && n > schema.get("maxLength").asLong()) problems.add(path + ": longer than maxLength");
            if (schema.has("pattern") && !Pattern.compile(schema.get("pattern").asText()).matcher(s).find()) problems.add(path + ": pattern fails");
        } else if (v.isNumber()) {
            BigDecimal d = v.decimalValue();
            if (schema.has("minimum") && d.compareTo(schema.get("minimum").decimalValue()) < 0) problems.add(path + ": below minimum");
            if (schema.has("maximum") && d.compareTo(schema.get("maximum").decimalValue()) > 0) problems.add(path + ": above maximum");
        } else if (v.isArray()) {
            if (schema.has("minItems") && v.size() < schema.get("minItems").asLong()) problems.add(path + ": too few items");
            if (schema.has("maxItems") && v.size() > schema.get("maxItems").asLong()) problems.add(path + ": too many items");
            if (schema.has("items")) for (int i = 0; i < v.size(); i++) value(v.get(i), schema.get("items"), root, path + "[" + i + "]", problems);
        } else if (v.isObject() && (types.contains("object") || schema.has("properties"))) {
            JsonNode props = schema.has("properties") ? schema.get("properties") : com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
            for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (!props.has(e.getKey())) problems.add(path + ": undeclared key " + e.getKey());
                else value(e.getValue(), props.get(e.getKey()), root, path + "." + e.getKey(), problems);
            }
            if (schema.has("required")) for (JsonNode r : schema.get("required")) {
                if (!v.has(r.asText())) problems.add(path + ": missing required " + r.asText());
            }
        }
    }

    static List<String> problems(JsonNode v, JsonNode schema, JsonNode root) {
        List<String> problems = new ArrayList<>();
        value(v, schema, root, "", problems);
        return problems;
    }

    private static boolean hasType(JsonNode v, String type) {
        return switch (type) {
            case "string" -> v.isTextual();
            case "integer" -> v.isIntegralNumber() || (v.isNumber() && v.decimalValue().stripTrailingZeros().scale() <= 0);
            case "number" -> v.isNumber();
            case "boolean" -> v.isBoolean();
            case "null" -> v.isNull();
            case "array" -> v.isArray();
            case "object" -> v.isObject();
            default -> false;
        };
    }
}
