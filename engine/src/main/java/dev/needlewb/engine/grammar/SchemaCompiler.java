package dev.needlewb.engine.grammar;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.NullNode;
import static dev.needlewb.core.json.JsonText.kind;
import static dev.needlewb.core.json.JsonText.quoted;

import dev.needlewb.core.json.JsonPath;
import dev.needlewb.core.json.JsonValues;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Compiles the JSON-schema subset of one tool's {@code parameters} into {@link SchemaNode}s: types
 * string, integer, number, boolean, null, array ({@code items}), object ({@code properties},
 * {@code required}), a list of them ({@code ["string", "null"]}); {@code enum} and {@code const};
 * {@code minimum}/{@code maximum}, {@code minLength}/{@code maxLength}, {@code pattern},
 * {@code minItems}/{@code maxItems}; {@code anyOf}, and {@code oneOf} when no value can match two of its
 * options; {@code $ref} to a place in the same parameters ({@code #/$defs/...}, {@code #/definitions/...}),
 * each compiled once, cycles refused. Annotations (description, title, default, examples, format, ...)
 * are ignored; any other keyword, or a schema no value satisfies, is refused naming its path.
 */
final class SchemaCompiler {
    /** A schema the compiler refuses, at {@code path} in the parameters. */
    static final class SchemaError extends Exception {
        final JsonPath path;

        SchemaError(JsonPath path, String what) {
            super(what);
            this.path = path;
        }
    }

    private static final Set<String> ANNOTATIONS = Set.of("description", "title", "default", "examples", "format",
            "$schema", "$comment", "$id", "deprecated", "readOnly", "writeOnly", "additionalProperties");
    private static final Set<String> DEFINITIONS = Set.of("$defs", "definitions");
    private static final Set<String> TYPED = Set.of("type", "enum", "const", "minimum", "maximum", "minLength",
            "maxLength", "pattern", "items", "minItems", "maxItems", "properties", "required");
    private static final Set<String> COMBINED = Set.of("anyOf", "oneOf", "$ref");
    private static final List<String> TYPES = List.of("string", "integer", "number", "boolean", "null", "array", "object");
    /** Schemas nested deeper than this are refused (the compiler and the automaton recurse per level). */
    static final int MAX_DEPTH = 64;
    static final JsonMapper JSON = JsonMapper.builder().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();

    private final JsonNode root;
    private final Map<String, SchemaNode> references = new HashMap<>();
    private final Set<String> resolving = new LinkedHashSet<>();
    private final ValueKinds kinds = new ValueKinds();

    /** {@code root}: one tool's parameters, the document its {@code $ref}s point into. */
    SchemaCompiler(JsonNode root) {
        this.root = root;
    }

    /** The tool's arguments: an object schema ({@code {}} reads as an object without properties). */
    SchemaNode.ObjectNode parameters() throws SchemaError {
        if (root.isObject() && root.isEmpty()) return object(root, JsonPath.ROOT, 0);
        if (!(compile(root, JsonPath.ROOT, 0) instanceof SchemaNode.ObjectNode object)) {
            throw new SchemaError(JsonPath.ROOT, "parameters must be an object schema (\"type\": \"object\")");
        }
        return object;
    }

    private SchemaNode compile(JsonNode schema, JsonPath path, int depth) throws SchemaError {
        if (depth > MAX_DEPTH) throw new SchemaError(path, "schemas nested deeper than " + MAX_DEPTH + " levels are not supported");
        if (!schema.isObject()) throw new SchemaError(path, "a schema must be a JSON object, found " + kind(schema));
        for (Iterator<String> it = schema.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!TYPED.contains(key) && !COMBINED.contains(key) && !ANNOTATIONS.contains(key) && !DEFINITIONS.contains(key)) {
                throw new SchemaError(path, "unsupported schema keyword " + quoted(key));
            }
        }
        SchemaNode node;
        if (schema.has("$ref")) node = reference(schema, path, depth);
        else if (schema.has("anyOf") || schema.has("oneOf")) node = alternatives(schema, path, depth);
        else node = typed(schema, path, depth);
        if (node.minBytes() >= Need.DEAD) throw new SchemaError(path, "no value satisfies this schema");
        return node;
    }

    /** Refuses any key of {@code schema} beside {@code keyword} other than annotations and definitions. */
    private static void alone(JsonNode schema, String keyword, JsonPath path) throws SchemaError {
        for (Iterator<String> it = schema.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (key.equals(keyword) || ANNOTATIONS.contains(key) || DEFINITIONS.contains(key)) continue;
            throw new SchemaError(path, quoted(key) + " beside \"" + keyword + "\" is not supported (only annotations may go beside it)");
        }
    }

    private SchemaNode reference(JsonNode schema, JsonPath path, int depth) throws SchemaError {
        alone(schema, "$ref", path);
        JsonNode ref = schema.get("$ref");
        JsonPath at = path.key("$ref");
        if (!ref.isTextual() || !ref.textValue().startsWith("#")) {
            throw new SchemaError(at, "only references into the same parameters (\"#/$defs/...\") are supported, found " + ref);
        }
        String target = ref.textValue();
        SchemaNode done = references.get(target);
        if (done != null) return done;
        if (resolving.contains(target)) {
            throw new SchemaError(at, "$ref cycle " + String.join(" -> ", resolving) + " -> " + target + " (recursive schemas are not supported)");
        }
        JsonPointer pointer;
        try {
            pointer = JsonPointer.compile(target.substring(1));
        } catch (IllegalArgumentException e) {
            throw new SchemaError(at, quoted(target) + " is not a JSON pointer: " + e.getMessage());
        }
        JsonNode resolved = root.at(pointer);
        if (resolved.isMissingNode()) throw new SchemaError(at, quoted(target) + " names nothing in this tool's parameters");
        resolving.add(target);
        SchemaNode node = compile(resolved, pathOf(pointer), depth + 1);
        resolving.remove(target);
        references.put(target, node);
        return node;
    }

    /** The path in the parameters that {@code pointer} names (it exists). */
    private JsonPath pathOf(JsonPointer pointer) {
        JsonPath path = JsonPath.ROOT;
        JsonNode at = root;
        for (JsonPointer p = pointer; !p.matches(); p = p.tail()) {
            path = at.isArray() ? path.index(p.getMatchingIndex()) : path.key(p.getMatchingProperty());
            at = at.isArray() ? at.get(p.getMatchingIndex()) : at.get(p.getMatchingProperty());
        }
        return path;
    }

    private SchemaNode alternatives(JsonNode schema, JsonPath path, int depth) throws SchemaError {
        if (schema.has("anyOf") && schema.has("oneOf")) throw new SchemaError(path, "\"anyOf\" beside \"oneOf\" is not supported");
        String keyword = schema.has("anyOf") ? "anyOf" : "oneOf";
        alone(schema, keyword, path);
        JsonNode list = schema.get(keyword);
        JsonPath at = path.key(keyword);
        if (!list.isArray() || list.isEmpty()) throw new SchemaError(at, "must be a non-empty array of schemas");
        List<SchemaNode> options = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) options.add(compile(list.get(i), at.index(i), depth + 1));
        if (keyword.equals("oneOf")) {
            for (int i = 0; i < options.size(); i++) for (int j = i + 1; j < options.size(); j++) {
                if (!kinds.disjoint(options.get(i), options.get(j))) {
                    throw new SchemaError(at, "options " + i + " and " + j + " may both match one value, so the grammar cannot"
                            + " promise exactly one (write \"anyOf\" if either may match)");
                }
            }
        }
        return union(options);
    }

    private static SchemaNode union(List<SchemaNode> options) {
        List<SchemaNode> flat = new ArrayList<>();
        for (SchemaNode o : options) {
            if (o instanceof SchemaNode.UnionNode u) flat.addAll(u.options());
            else flat.add(o);
        }
        List<SchemaNode> distinct = List.copyOf(new LinkedHashSet<>(flat));
        return distinct.size() == 1 ? distinct.getFirst() : new SchemaNode.UnionNode(distinct);
    }

    private SchemaNode typed(JsonNode schema, JsonPath path, int depth) throws SchemaError {
        List<String> types = types(schema, path);
        if (schema.has("enum") || schema.has("const")) return literals(schema, types, path);
        List<SchemaNode> options = new ArrayList<>();
        for (String type : types) options.add(ofType(schema, type, path, depth));
        return union(options);
    }

    /** The type names of {@code schema}: its {@code type} (one or a list), else what its keywords imply; empty for an untyped enum/const. */
    private static List<String> types(JsonNode schema, JsonPath path) throws SchemaError {
        JsonNode t = schema.get("type");
        JsonPath at = path.key("type");
        if (t == null) {
            if (schema.has("enum") || schema.has("const")) return List.of();
            if (schema.has("properties")) return List.of("object");
            if (schema.has("items")) return List.of("array");
            throw new SchemaError(path, "schema has no \"type\" (a value of any type is not supported)");
        }
        List<String> names = new ArrayList<>();
        if (t.isTextual()) names.add(t.textValue());
        else if (t.isArray() && !t.isEmpty()) for (JsonNode n : t) names.add(n.isTextual() ? n.textValue() : null);
        else throw new SchemaError(at, "must be a type name or a non-empty list of them, found " + t);
        for (String name : names) {
            if (!TYPES.contains(name)) {
                throw new SchemaError(at, "unsupported type " + (name == null ? "(not a string)" : quoted(name)) + " (supported: " + String.join(", ", TYPES) + ")");
            }
        }
        return List.copyOf(new LinkedHashSet<>(names));
    }

    private SchemaNode ofType(JsonNode schema, String type, JsonPath path, int depth) throws SchemaError {
        return switch (type) {
            case "string" -> string(schema, path);
            case "integer", "number" -> new SchemaNode.NumberNode(new NumberRule(type.equals("integer"),
                    decimal(schema, "minimum", path), decimal(schema, "maximum", path)));
            case "boolean" -> literal(List.of(BooleanNode.TRUE, BooleanNode.FALSE));
            case "null" -> literal(List.of(NullNode.instance));
            case "array" -> array(schema, path, depth);
            default -> object(schema, path, depth);
        };
    }

    /**
     * {@code enum} and {@code const} (both: the const, if the enum holds it), keeping the values of the schema's
     * types. Other constraints beside them are refused rather than checked value by value.
     */
    private SchemaNode literals(JsonNode schema, List<String> types, JsonPath path) throws SchemaError {
        for (Iterator<String> it = schema.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (TYPED.contains(key) && !key.equals("type") && !key.equals("enum") && !key.equals("const")) {
                throw new SchemaError(path, quoted(key) + " beside \"enum\"/\"const\" is not supported");
            }
        }
        List<JsonNode> values = new ArrayList<>();
        if (schema.has("enum")) {
            JsonNode e = schema.get("enum");
            if (!e.isArray() || e.isEmpty()) throw new SchemaError(path.key("enum"), "must be a non-empty array");
            e.forEach(values::add);
        }
        if (schema.has("const")) {
            JsonNode c = schema.get("const");
            boolean listed = values.isEmpty() || values.stream().anyMatch(v -> JsonValues.same(v, c));
            values = listed ? List.of(c) : List.of();
        }
        List<JsonNode> kept = new ArrayList<>();
        for (JsonNode v : values) {
            if (v.isNumber() && !Double.isFinite(v.doubleValue())) throw new SchemaError(path, v + " is not a JSON value");
            if (types.isEmpty() || types.stream().anyMatch(t -> fits(v, t))) kept.add(v);
        }
        if (kept.isEmpty()) {
            throw new SchemaError(path, schema.has("const") && schema.has("enum") ? "the \"const\" is not in the \"enum\""
                    : "no \"enum\"/\"const\" value has type " + String.join(" or ", types));
        }
        return literal(kept);
    }

    private static boolean fits(JsonNode v, String type) {
        return switch (type) {
            case "string" -> v.isTextual();
            case "integer" -> v.isIntegralNumber() || (v.isNumber() && Double.isFinite(v.doubleValue())
                    && v.decimalValue().stripTrailingZeros().scale() <= 0);
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

    private SchemaNode.LiteralNode literal(List<JsonNode> values) {
        Set<String> spellings = new LinkedHashSet<>();
        for (JsonNode v : values) spellings.add(spelling(v));
        SchemaNode.LiteralNode node = new SchemaNode.LiteralNode(new ByteTrie(spellings.stream().map(t -> t.getBytes(StandardCharsets.UTF_8)).toList()));
        kinds.literal(node, values);
        return node;
    }

    private SchemaNode string(JsonNode schema, JsonPath path) throws SchemaError {
        int min = count(schema, "minLength", 0, path);
        int max = count(schema, "maxLength", -1, path);
        if (max >= 0 && min > max) throw new SchemaError(path, "minLength " + min + " > maxLength " + max);
        JsonNode p = schema.get("pattern");
        if (p != null && !p.isTextual()) throw new SchemaError(path.key("pattern"), "must be a string");
        try {
            return new SchemaNode.StringNode(StringRule.of(p == null ? null : p.textValue(), min, max));
        } catch (IllegalArgumentException e) {
            throw new SchemaError(path, e.getMessage());
        }
    }

    private SchemaNode array(JsonNode schema, JsonPath path, int depth) throws SchemaError {
        JsonNode items = schema.get("items");
        if (items == null) throw new SchemaError(path, "an array schema needs \"items\"");
        int min = count(schema, "minItems", 0, path);
        int max = count(schema, "maxItems", -1, path);
        if (max >= 0 && min > max) throw new SchemaError(path, "minItems " + min + " > maxItems " + max);
        return new SchemaNode.ArrayNode(compile(items, path.key("items"), depth + 1), min, max);
    }

    private SchemaNode.ObjectNode object(JsonNode schema, JsonPath path, int depth) throws SchemaError {
        JsonNode props = schema.get("properties");
        if (props != null && !props.isObject()) throw new SchemaError(path.key("properties"), "must be an object");
        List<String> names = new ArrayList<>();
        List<SchemaNode> values = new ArrayList<>();
        if (props != null) {
            if (props.size() > SchemaNode.ObjectNode.MAX_KEYS) {
                throw new SchemaError(path.key("properties"), props.size() + " properties: at most " + SchemaNode.ObjectNode.MAX_KEYS + " are supported");
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = props.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                names.add(e.getKey());
                values.add(compile(e.getValue(), path.key("properties").key(e.getKey()), depth + 1));
            }
        }
        long required = 0;
        JsonNode req = schema.get("required");
        if (req != null) {
            if (!req.isArray()) throw new SchemaError(path.key("required"), "must be an array of property names");
            for (int i = 0; i < req.size(); i++) {
                JsonNode r = req.get(i);
                int k = r.isTextual() ? names.indexOf(r.textValue()) : -1;
                if (k < 0) throw new SchemaError(path.key("required").index(i), r + " is not one of the properties");
                required |= 1L << k;
            }
        }
        ByteTrie keys = new ByteTrie(names.stream().map(n -> spelling(JSON.getNodeFactory().textNode(n)).getBytes(StandardCharsets.UTF_8)).toList());
        SchemaNode.ObjectNode node = new SchemaNode.ObjectNode(keys, List.copyOf(values), required);
        kinds.object(node, names);
        return node;
    }

    private static int count(JsonNode schema, String key, int absent, JsonPath path) throws SchemaError {
        JsonNode v = schema.get(key);
        if (v == null) return absent;
        if (!v.isIntegralNumber() || v.bigIntegerValue().signum() < 0) throw new SchemaError(path.key(key), "must be a non-negative integer, found " + v);
        if (!v.canConvertToInt()) throw new SchemaError(path.key(key), quoted(key) + " " + v.bigIntegerValue() + " is too large: at most " + Integer.MAX_VALUE);
        return v.intValue();
    }

    private static BigDecimal decimal(JsonNode schema, String key, JsonPath path) throws SchemaError {
        JsonNode v = schema.get(key);
        if (v == null) return null;
        if (!v.isNumber() || !Double.isFinite(v.doubleValue())) throw new SchemaError(path.key(key), "must be a finite number, found " + v);
        return v.decimalValue();
    }

}
