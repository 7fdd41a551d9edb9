package dev.needlewb.reports.toolcalls;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.core.json.JsonValues;
import dev.needlewb.core.tokenizer.ToolSchemas;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * BFCL's AST match (gorilla, berkeley-function-call-leaderboard, {@code ast_checker.py}) of a call list
 * against a case's expected calls. An empty expectation passes only an empty answer (BFCL's
 * irrelevance). Otherwise the lists have the same length and each expected call, in order, takes the
 * first not yet taken answered call that passes the single-call check (BFCL's greedy order-free
 * parallel matching). A call passes when its name is the expected one; every parameter the tool
 * requires is given; every argument is a parameter of the tool and one the expected call gives; each
 * argument has a declared type (integer: a JSON integer, not 5.0; number: any number; array elements
 * checked one level down); and its value matches: strings after BFCL's normalization (spaces and
 * {@code , . / - _ * ^} removed, lower case, {@code '} read as {@code "}), lists in order with their
 * strings normalized, objects key by key with strings normalized, other values equal by value. BFCL's
 * ground truth may list several acceptable values per parameter and allow leaving one out; a case
 * gives one expected call, so each argument has one acceptable value and none may be left out.
 */
final class AstMatch {
    private static final Pattern BFCL_REMOVED = Pattern.compile("[ ,./\\-_*^]");

    private AstMatch() {}

    static boolean matches(JsonNode got, JsonNode expected, ToolSchemas tools) {
        if (got == null) return false;
        if (expected.isEmpty()) return got.isEmpty();
        if (got.size() != expected.size()) return false;
        boolean[] taken = new boolean[got.size()];
        for (JsonNode want : expected) {
            int found = -1;
            for (int j = 0; j < got.size() && found < 0; j++) if (!taken[j] && call(got.get(j), want, tools)) found = j;
            if (found < 0) return false;
            taken[found] = true;
        }
        return true;
    }

    private static boolean call(JsonNode got, JsonNode want, ToolSchemas tools) {
        String name = want.get("name").textValue();
        if (!got.path("name").isTextual() || !got.get("name").textValue().equals(name) || !got.path("arguments").isObject()) return false;
        int tool = tools.names().indexOf(name);
        JsonNode root = tools.tool(tool).get("parameters");
        JsonNode schema = tools.argumentsSchema(tool);
        JsonNode arguments = got.get("arguments");
        JsonNode wanted = want.get("arguments");
        for (JsonNode r : schema.path("required")) if (!arguments.has(r.asText())) return false;
        for (Iterator<Map.Entry<String, JsonNode>> it = arguments.properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> a = it.next();
            JsonNode declared = schema.path("properties").get(a.getKey());
            JsonNode expectedValue = wanted.get(a.getKey());
            if (declared == null || expectedValue == null) return false;
            if (!typed(a.getValue(), declared, root, true) || !value(a.getValue(), expectedValue)) return false;
        }
        for (Iterator<String> it = wanted.fieldNames(); it.hasNext(); ) if (!arguments.has(it.next())) return false;
        return true;
    }

    /** Whether {@code v} has a type {@code schema} declares (no declaration: any); {@code elements}: also check array elements. */
    private static boolean typed(JsonNode v, JsonNode schema, JsonNode root, boolean elements) {
        Set<String> types = new HashSet<>();
        declaredTypes(schema, root, types, 0);
        if (types.isEmpty()) return true;
        for (String t : types) {
            boolean fits = switch (t) {
                case "string" -> v.isTextual();
                case "integer" -> v.isIntegralNumber();
                case "number" -> v.isNumber();
                case "boolean" -> v.isBoolean();
                case "null" -> v.isNull();
                case "array" -> v.isArray() && (!elements || elementsTyped(v, schema, root));
                case "object" -> v.isObject();
                default -> false;
            };
            if (fits) return true;
        }
        return false;
    }

    private static boolean elementsTyped(JsonNode list, JsonNode schema, JsonNode root) {
        JsonNode items = resolve(schema, root).get("items");
        if (items == null) return true;
        for (JsonNode e : list) if (!typed(e, items, root, false)) return false;
        return true;
    }

    /** The type names a schema declares: its type(s), its options' types, its enum/const values' types. */
    private static void declaredTypes(JsonNode schema, JsonNode root, Set<String> into, int depth) {
        JsonNode s = resolve(schema, root);
        if (depth > 16 || !s.isObject()) return;
        for (String key : new String[] {"anyOf", "oneOf"}) for (JsonNode option : s.path(key)) declaredTypes(option, root, into, depth + 1);
        JsonNode type = s.get("type");
        if (type != null && type.isTextual()) into.add(type.textValue());
        if (type != null && type.isArray()) type.forEach(t -> into.add(t.asText()));
        if (type != null) return;
        for (JsonNode v : s.path("enum")) into.add(typeOf(v));
        if (s.has("const")) into.add(typeOf(s.get("const")));
    }

    private static String typeOf(JsonNode v) {
        if (v.isIntegralNumber()) return "integer";
        if (v.isNumber()) return "number";
        if (v.isTextual()) return "string";
        if (v.isBoolean()) return "boolean";
        if (v.isNull()) return "null";
        return v.isArray() ? "array" : "object";
    }

    /** {@code schema}, or where its {@code $ref} points in {@code root} (one hop; the grammar refused cycles). */
    private static JsonNode resolve(JsonNode schema, JsonNode root) {
        JsonNode ref = schema.get("$ref");
        if (ref == null || !ref.isTextual() || !ref.textValue().startsWith("#")) return schema;
        try {
            return root.at(ref.textValue().substring(1));
        } catch (IllegalArgumentException e) {
            return schema;
        }
    }

    private static boolean value(JsonNode got, JsonNode want) {
        if (want.isTextual()) return got.isTextual() && standardized(got.textValue()).equals(standardized(want.textValue()));
        if (want.isObject()) return object(got, want);
        if (want.isArray()) {
            if (!got.isArray() || got.size() != want.size()) return false;
            boolean ofObjects = want.size() > 0;
            for (JsonNode w : want) ofObjects &= w.isObject();
            for (int i = 0; i < want.size(); i++) {
                JsonNode g = got.get(i), w = want.get(i);
                boolean same = ofObjects ? object(g, w) : w.isTextual() ? value(g, w) : JsonValues.same(g, w);
                if (!same) return false;
            }
            return true;
        }
        return JsonValues.same(got, want);
    }

    /** BFCL's dict_checker for one acceptable dict: the same keys, string values normalized, others equal. */
    private static boolean object(JsonNode got, JsonNode want) {
        if (!got.isObject() || got.size() != want.size()) return false;
        for (Iterator<Map.Entry<String, JsonNode>> it = want.properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode g = got.get(e.getKey());
            if (g == null) return false;
            boolean same = e.getValue().isTextual() ? value(g, e.getValue()) : JsonValues.same(g, e.getValue());
            if (!same) return false;
        }
        return true;
    }

    /** BFCL's standardize_string. */
    static String standardized(String s) {
        return BFCL_REMOVED.matcher(s).replaceAll("").toLowerCase(Locale.ROOT).replace('\'', '"');
    }
}
