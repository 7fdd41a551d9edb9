package dev.needlewb.engine.grammar;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.needlewb.core.WorkbenchException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Compiles the JSON-schema subset of a tool's {@code parameters} into {@link SchemaNode}s: types
 * string, integer, number, boolean, null, array (with {@code items}), object (with
 * {@code properties}, {@code required}); {@code enum} and {@code const}; {@code minimum}/{@code maximum},
 * {@code minLength}/{@code maxLength}, {@code pattern}, {@code minItems}/{@code maxItems}. Annotations
 * (description, title, default, examples, format, ...) are ignored; any other keyword, a type list,
 * or a schema no value satisfies is refused naming its path.
 */
final class SchemaCompiler {
    private static final Set<String> ANNOTATIONS = Set.of("description", "title", "default", "examples", "format",
            "$schema", "$comment", "$id", "deprecated", "readOnly", "writeOnly", "additionalProperties");
    private static final Set<String> HANDLED = Set.of("type", "enum", "const", "minimum", "maximum", "minLength",
            "maxLength", "pattern", "items", "minItems", "maxItems", "properties", "required");
    static final JsonMapper JSON = JsonMapper.builder().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();

    private final String source;

    SchemaCompiler(String source) {
        this.source = source;
    }

    /** A tool's {@code parameters}: must be an object schema. */
    SchemaNode.ObjectNode parameters(JsonNode schema, String path) throws WorkbenchException {
        if (!(compile(schema, path) instanceof SchemaNode.ObjectNode object)) {
            throw error(path, "parameters must be an object schema (\"type\": \"object\")");
        }
        return object;
    }

    SchemaNode compile(JsonNode schema, String path) throws WorkbenchException {
        if (!schema.isObject()) throw error(path, "a schema must be a JSON object");
        for (Iterator<String> it = schema.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!HANDLED.contains(key) && !ANNOTATIONS.contains(key)) throw error(path, "unsupported schema keyword \"" + key + "\"");
        }
        String type = type(schema, path);
        SchemaNode node;
        if (schema.has("enum") || schema.has("const")) node = literals(schema, type, path);
        else node = switch (type) {
            case "string" -> string(schema, path);
            case "integer", "number" -> new SchemaNode.NumberNode(new NumberRule(type.equals("integer"),
                    decimal(schema, "minimum", path), decimal(schema, "maximum", path)));
            case "boolean" -> spellings(List.of("true", "false"));
            case "null" -> spellings(List.of("null"));
            case "array" -> array(schema, path);
            case "object" -> object(schema, path);
            default -> throw error(path, "unsupported type \"" + type + "\" (supported: string, integer, number, boolean, null, array, object)");
        };
        if (node.minBytes() >= Need.DEAD) throw error(path, "no value satisfies this schema");
        return node;
    }

    private String type(JsonNode schema, String path) throws WorkbenchException {
        JsonNode t = schema.get("type");
        if (t == null) {
            if (schema.has("enum") || schema.has("const")) return "";
            if (schema.has("properties")) return "object";
            if (schema.has("items")) return "array";
            throw error(path, "schema has no \"type\"");
        }
        if (!t.isTextual()) throw error(path, "\"type\" must be one type name (type lists are not supported)");
        return t.textValue();
    }

    private SchemaNode literals(JsonNode schema, String type, String path) throws WorkbenchException {
        List<JsonNode> values = new ArrayList<>();
        if (schema.has("const")) values.add(schema.get("const"));
        if (schema.has("enum")) {
            JsonNode e = schema.get("enum");
            if (!e.isArray() || e.isEmpty()) throw error(path, "\"enum\" must be a non-empty array");
            e.forEach(values::add);
        }
        Set<String> kept = new LinkedHashSet<>();
        for (JsonNode v : values) if (type.isEmpty() || fits(v, type)) kept.add(spelling(v));
        if (kept.isEmpty()) throw error(path, "no enum/const value has type \"" + type + "\"");
        return spellings(new ArrayList<>(kept));
    }

    private static boolean fits(JsonNode v, String type) {
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

    /** Compact JSON spelling of a value. */
    static String spelling(JsonNode v) {
        try {
            return JSON.writeValueAsString(v);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a parsed JSON tree always writes", e);
        }
    }

    private static SchemaNode.LiteralNode spellings(List<String> texts) {
        return new SchemaNode.LiteralNode(new ByteTrie(texts.stream().map(t -> t.getBytes(StandardCharsets.UTF_8)).toList()));
    }

    private SchemaNode string(JsonNode schema, String path) throws WorkbenchException {
        int min = count(schema, "minLength", 0, path);
        int max = count(schema, "maxLength", -1, path);
        if (max >= 0 && min > max) throw error(path, "minLength " + min + " > maxLength " + max);
        JsonNode p = schema.get("pattern");
        if (p != null && !p.isTextual()) throw error(path, "\"pattern\" must be a string");
        try {
            return new SchemaNode.StringNode(StringRule.of(p == null ? null : p.textValue(), min, max));
        } catch (IllegalArgumentException e) {
            throw error(path, e.getMessage());
        }
    }

    private SchemaNode array(JsonNode schema, String path) throws WorkbenchException {
        JsonNode items = schema.get("items");
        if (items == null) throw error(path, "an array schema needs \"items\"");
        int min = count(schema, "minItems", 0, path);
        int max = count(schema, "maxItems", -1, path);
        if (max >= 0 && min > max) throw error(path, "minItems " + min + " > maxItems " + max);
        return new SchemaNode.ArrayNode(compile(items, path + ".items"), min, max);
    }

    private SchemaNode object(JsonNode schema, String path) throws WorkbenchException {
        JsonNode props = schema.get("properties");
        if (props != null && !props.isObject()) throw error(path, "\"properties\" must be an object");
        List<String> names = new ArrayList<>();
        List<SchemaNode> values = new ArrayList<>();
        if (props != null) {
            for (Iterator<Map.Entry<String, JsonNode>> it = props.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                names.add(e.getKey());
                values.add(compile(e.getValue(), path + "." + e.getKey()));
            }
        }
        if (names.size() > SchemaNode.ObjectNode.MAX_KEYS) {
            throw error(path, names.size() + " properties: at most " + SchemaNode.ObjectNode.MAX_KEYS + " are supported");
        }
        long required = 0;
        JsonNode req = schema.get("required");
        if (req != null) {
            if (!req.isArray()) throw error(path, "\"required\" must be an array of property names");
            for (JsonNode r : req) {
                int k = r.isTextual() ? names.indexOf(r.textValue()) : -1;
                if (k < 0) throw error(path, "required " + r + " is not one of the properties");
                required |= 1L << k;
            }
        }
        ByteTrie keys = new ByteTrie(names.stream().map(n -> spelling(JSON.getNodeFactory().textNode(n)).getBytes(StandardCharsets.UTF_8)).toList());
        return new SchemaNode.ObjectNode(keys, List.copyOf(values), required);
    }

    private int count(JsonNode schema, String key, int absent, String path) throws WorkbenchException {
        JsonNode v = schema.get(key);
        if (v == null) return absent;
        if (!v.isIntegralNumber() || v.bigIntegerValue().signum() < 0) throw error(path, "\"" + key + "\" must be a non-negative integer");
        if (!v.canConvertToInt()) throw error(path, "\"" + key + "\" " + v.bigIntegerValue() + " is too large: at most " + Integer.MAX_VALUE);
        return v.intValue();
    }

    private BigDecimal decimal(JsonNode schema, String key, String path) throws WorkbenchException {
        JsonNode v = schema.get(key);
        if (v == null) return null;
        if (!v.isNumber() || !Double.isFinite(v.doubleValue())) throw error(path, "\"" + key + "\" must be a finite number");
        return v.decimalValue();
    }

    private WorkbenchException error(String path, String what) {
        return new WorkbenchException(source + ": " + path + ": " + what);
    }
}
