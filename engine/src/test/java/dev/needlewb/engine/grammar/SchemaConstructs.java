package dev.needlewb.engine.grammar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Random argument schemas built from the constructs the grammar accepts, each instance different:
 * the tests draw hundreds of outputs per construct from these rather than from a few hand-written
 * examples. Leaves vary in type and bounds (lengths, patterns, ranges on both sides of zero), and
 * the constructs nest one another.
 */
final class SchemaConstructs {
    enum Construct { ANY_OF_NULL, ANY_OF, ONE_OF, TYPE_LIST, NESTED_OBJECT, ARRAY_OF_OBJECTS, NUMERIC_ENUM, CONST, REF, ANNOTATED, MIXED }

    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final String[] PATTERNS = {"^[a-z]+$", "^[A-Z][a-z]{0,3}$", "^[0-9]{2,3}$", "^(red|green|blue)$", "x", "^@[a-z0-9_]+$"};
    private static final String[] WORDS = {"celsius", "fahrenheit", "kelvin", "caf\u00e9", "a\"b", "x y", "10", ""};
    private static final List<String> KINDS = List.of("string", "integer", "boolean", "null", "array", "object");

    private final SplittableRandom r;
    /** Definitions the REF construct adds to the parameters ({@code $defs} or {@code definitions}). */
    final ObjectNode defs = F.objectNode();
    final String defsKey;
    private final List<String> finished = new ArrayList<>();

    SchemaConstructs(long seed) {
        this.r = new SplittableRandom(seed);
        this.defsKey = r.nextBoolean() ? "$defs" : "definitions";
    }

    JsonNode instance(Construct c) {
        return switch (c) {
            case ANY_OF_NULL -> {
                ObjectNode s = F.objectNode();
                s.putArray("anyOf").add(r.nextInt(3) == 0 ? object(1) : leaf()).add(type("null"));
                s.putNull("default");
                s.put("title", "Optional");
                yield s;
            }
            case ANY_OF -> {
                ObjectNode s = F.objectNode();
                ArrayNode options = s.putArray("anyOf");
                for (int i = 0, n = 2 + r.nextInt(3); i < n; i++) options.add(schema(1));
                yield s;
            }
            case ONE_OF -> oneOf();
            case TYPE_LIST -> typeList();
            case NESTED_OBJECT -> object(3);
            case ARRAY_OF_OBJECTS -> {
                ObjectNode s = type("array");
                s.set("items", object(2));
                int min = r.nextInt(3);
                s.put("minItems", min);
                s.put("maxItems", min + r.nextInt(3));
                yield s;
            }
            case NUMERIC_ENUM -> numericEnum();
            case CONST -> {
                ObjectNode s = F.objectNode();
                s.set("const", value(2));
                yield s;
            }
            case REF -> reference(2);
            case ANNOTATED -> annotate(schema(2));
            case MIXED -> schema(3);
        };
    }

    /** Any schema up to {@code depth} levels of containers. */
    private JsonNode schema(int depth) {
        if (depth == 0) return leaf();
        return switch (r.nextInt(10)) {
            case 0 -> instance(Construct.ANY_OF_NULL);
            case 1 -> {
                ObjectNode s = F.objectNode();
                ArrayNode options = s.putArray("anyOf");
                for (int i = 0, n = 2 + r.nextInt(2); i < n; i++) options.add(schema(depth - 1));
                yield s;
            }
            case 2 -> oneOf();
            case 3 -> typeList();
            case 4 -> object(depth);
            case 5 -> {
                ObjectNode s = type("array");
                s.set("items", schema(depth - 1));
                s.put("maxItems", 1 + r.nextInt(3));
                yield s;
            }
            case 6 -> numericEnum();
            case 7 -> reference(depth);
            default -> leaf();
        };
    }

    private ObjectNode leaf() {
        return switch (r.nextInt(8)) {
            case 0 -> {
                ObjectNode s = type("string");
                int kind = r.nextInt(4);
                if (kind == 1) s.put("maxLength", 1 + r.nextInt(6));
                if (kind == 2) {
                    int min = 1 + r.nextInt(3);
                    s.put("minLength", min).put("maxLength", min + r.nextInt(4));
                }
                if (kind == 3) s.put("pattern", PATTERNS[r.nextInt(PATTERNS.length)]).put("maxLength", 8);
                yield s;
            }
            case 1 -> {
                ObjectNode s = type("integer");
                if (r.nextBoolean()) {
                    int min = r.nextInt(101) - 50;
                    s.put("minimum", min).put("maximum", min + r.nextInt(300));
                }
                yield s;
            }
            case 2 -> {
                ObjectNode s = type("number");
                if (r.nextBoolean()) s.put("minimum", (r.nextInt(41) - 20) / 4.0).put("maximum", 10.75 + r.nextInt(20));
                yield s;
            }
            case 3 -> type("boolean");
            case 4 -> type("null");
            case 5 -> {
                ObjectNode s = type("string");
                ArrayNode e = s.putArray("enum");
                for (int i = 0, n = 1 + r.nextInt(4); i < n; i++) e.add(WORDS[(i * 3 + r.nextInt(3)) % WORDS.length]);
                yield s;
            }
            case 6 -> numericEnum();
            default -> {
                ObjectNode s = F.objectNode();
                s.set("const", value(0));
                yield s;
            }
        };
    }

    private ObjectNode object(int depth) {
        ObjectNode s = type("object");
        ObjectNode props = s.putObject("properties");
        ArrayNode required = F.arrayNode();
        for (int i = 0, n = 1 + r.nextInt(4); i < n; i++) {
            String key = "k" + i + (i % 2 == 0 ? "" : "_" + WORDS[r.nextInt(3)]);
            props.set(key, depth > 1 && r.nextBoolean() ? object(depth - 1) : schema(depth - 1));
            if (r.nextInt(3) > 0) required.add(key);
        }
        if (!required.isEmpty()) s.set("required", required);
        return s;
    }

    /** Options no one value can match twice: distinct JSON kinds, or objects told apart by a required const "kind". */
    private ObjectNode oneOf() {
        ObjectNode s = F.objectNode();
        ArrayNode options = s.putArray("oneOf");
        if (r.nextBoolean()) {
            List<String> kinds = new ArrayList<>(KINDS);
            for (int i = 0, n = 2 + r.nextInt(3); i < n; i++) {
                String kind = kinds.remove(r.nextInt(kinds.size()));
                ObjectNode option = type(kind);
                if (kind.equals("array")) {
                    option.set("items", leaf());
                    option.put("maxItems", 2);
                }
                if (kind.equals("object")) option.putObject("properties").set("p", leaf());
                if (kind.equals("string") && r.nextBoolean()) option.put("maxLength", 4);
                if (kind.equals("integer") && r.nextBoolean()) option.put("minimum", -5).put("maximum", 5);
                options.add(option);
            }
        } else {
            for (int i = 0, n = 2 + r.nextInt(2); i < n; i++) {
                ObjectNode option = object(1);
                ((ObjectNode) option.get("properties")).putObject("kind").put("const", "kind" + i);
                ArrayNode required = option.has("required") ? (ArrayNode) option.get("required") : option.putArray("required");
                required.add("kind");
                options.add(option);
            }
        }
        return s;
    }

    private ObjectNode typeList() {
        List<String> all = new ArrayList<>(List.of("string", "integer", "number", "boolean", "null", "array", "object"));
        ObjectNode s = F.objectNode();
        ArrayNode types = s.putArray("type");
        for (int i = 0, n = 2 + r.nextInt(2); i < n; i++) {
            String t = all.remove(r.nextInt(all.size()));
            types.add(t);
            switch (t) {
                case "string" -> s.put("maxLength", 1 + r.nextInt(5));
                case "integer", "number" -> s.put("minimum", -3).put("maximum", 40);
                case "array" -> s.set("items", leaf());
                case "object" -> s.putObject("properties").set("q", leaf());
                default -> { }
            }
        }
        return s;
    }

    private ObjectNode numericEnum() {
        int kind = r.nextInt(3);
        ObjectNode s = kind == 0 ? type("integer") : kind == 1 ? type("number") : F.objectNode();
        ArrayNode e = s.putArray("enum");
        int[] ints = {1, 10, 100, -3, 0, 42, 7};
        double[] decimals = {0.5, 1.25, -2.75, 10.5, 3.125};
        for (int i = 0, n = 2 + r.nextInt(4); i < n; i++) {
            if (kind == 0 || r.nextBoolean()) e.add(ints[(i + r.nextInt(3)) % ints.length]);
            else e.add(decimals[(i + r.nextInt(3)) % decimals.length]);
        }
        if (kind == 2 && r.nextBoolean()) e.add("auto");
        return s;
    }

    /** A $ref to a new definition (which may itself refer to a finished earlier one), sometimes with annotations beside it. */
    private ObjectNode reference(int depth) {
        String name = "D" + defs.size();
        defs.putNull(name); // reserved while its body is drawn, which may add definitions of its own
        defs.set(name, finished.isEmpty() || r.nextBoolean() ? schema(Math.max(0, depth - 1)) : earlierReference());
        finished.add(name);
        ObjectNode s = F.objectNode();
        s.put("$ref", "#/" + defsKey + "/" + name);
        if (r.nextBoolean()) s.put("description", "see " + name);
        return s;
    }

    private ObjectNode earlierReference() {
        ObjectNode s = type("array");
        s.putObject("items").put("$ref", "#/" + defsKey + "/" + finished.get(r.nextInt(finished.size())));
        s.put("maxItems", 2);
        return s;
    }

    private JsonNode annotate(JsonNode schema) {
        if (!(schema instanceof ObjectNode s)) return schema;
        s.put("title", "T").put("description", "annotated").put("$comment", "ignored");
        if (r.nextBoolean()) s.put("format", "date-time").put("deprecated", false).put("readOnly", true);
        s.putArray("examples").add(value(1));
        s.set("default", value(1));
        for (String key : List.of("properties")) {
            if (s.has(key)) s.get(key).properties().forEach(e -> annotate(e.getValue()));
        }
        if (s.has("items")) annotate(s.get("items"));
        for (String key : List.of("anyOf", "oneOf")) if (s.has(key)) s.get(key).forEach(this::annotate);
        return s;
    }

    private JsonNode value(int depth) {
        return switch (r.nextInt(depth > 0 ? 8 : 6)) {
            case 0 -> F.textNode(WORDS[r.nextInt(WORDS.length)]);
            case 1 -> F.numberNode(r.nextInt(2001) - 1000);
            case 2 -> F.numberNode((r.nextInt(401) - 200) / 8.0);
            case 3 -> F.booleanNode(r.nextBoolean());
            case 4 -> F.nullNode();
            case 5 -> F.textNode("k" + r.nextInt(10));
            case 6 -> F.arrayNode().add(value(depth - 1)).add(value(depth - 1));
            default -> {
                ObjectNode o = F.objectNode();
                o.set("a", value(depth - 1));
                o.set("b", value(depth - 1));
                yield o;
            }
        };
    }

    private static ObjectNode type(String t) {
        ObjectNode s = F.objectNode();
        s.put("type", t);
        return s;
    }
}
