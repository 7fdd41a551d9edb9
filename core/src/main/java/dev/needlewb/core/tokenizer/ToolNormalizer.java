package dev.needlewb.core.tokenizer;

import static dev.needlewb.core.json.JsonText.kind;
import static dev.needlewb.core.json.JsonText.quoted;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.json.JsonOrigin;
import dev.needlewb.core.json.JsonPath;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * Reads one tool in any {@link ToolShape} into upstream's shape, the one the model was trained on:
 * {@code {"name", "description"?, "parameters": {"type": "object", "properties": {...}, "required": [...]?}}}.
 * An upstream tool is kept as written, every key in its order (that is what upstream's
 * {@code render_example} renders, so a model fine-tuned on a file sees the same prompt here). An OpenAI
 * tool becomes {@code name, description, parameters} in that order, upstream's {@code build_schema} order
 * ({@code type} and {@code strict} are API flags, not shown to the model). A flattened tool keeps its keys
 * and order, its parameter map becoming the object schema build_schema writes: each parameter's spec
 * without its {@code required} flag, in order, and {@code required} listing the flagged ones (left out
 * when none is, as build_schema does).
 */
final class ToolNormalizer {
    /** A tool as read: upstream's shape, the shape it was written in, and where its parameters schema sits in the source. */
    record Read(ObjectNode tool, String name, ToolShape shape, JsonPath parametersAt) {}

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final Set<String> CHAT_KEYS = Set.of("type", "function");
    private static final Set<String> FUNCTION_KEYS = Set.of("name", "description", "parameters", "strict");
    private static final Set<String> FLAT_KEYS = Set.of("type", "name", "description", "parameters", "strict");
    private static final String SHAPES = "a tool is {\"name\", \"parameters\": JSON schema} (upstream), {\"name\", \"parameters\": "
            + "{\"p\": {\"type\", \"required\": true}}} (flattened) or {\"type\": \"function\", \"function\": {...}} (OpenAI, also flat)";

    private ToolNormalizer() {}

    static Read read(JsonNode tool, JsonOrigin origin, JsonPath at) throws WorkbenchException {
        if (!tool.isObject()) throw origin.error(ErrorKind.BAD_SCHEMA, at, "not a tool: " + SHAPES + "; found " + kind(tool));
        JsonNode type = tool.get("type");
        boolean functionType = type != null && type.isTextual() && type.textValue().equals("function");
        if (tool.has("function")) {
            if (type != null && !functionType) throw origin.error(ErrorKind.UNSUPPORTED, at.key("type"), "only function tools are supported, found " + type);
            onlyKeys(tool, CHAT_KEYS, origin, at, "an OpenAI tool {\"type\": \"function\", \"function\": {...}}");
            JsonNode function = tool.get("function");
            if (!function.isObject()) throw origin.error(ErrorKind.BAD_SCHEMA, at.key("function"), "must be an object {\"name\", \"description\", \"parameters\"}, found " + kind(function));
            return function(function, ToolShape.OPENAI, FUNCTION_KEYS, origin, at.key("function"));
        }
        if (functionType) return function(tool, ToolShape.OPENAI_FLAT, FLAT_KEYS, origin, at);
        if (!tool.has("name")) {
            if (tool.has("parameters")) throw origin.error(ErrorKind.MISSING_KEY, at, "the tool has no \"name\"");
            throw origin.error(ErrorKind.BAD_SCHEMA, at, "not a tool: " + SHAPES + "; found keys " + keys(tool));
        }
        String name = name(tool, origin, at);
        description(tool, false, origin, at);
        JsonNode parameters = tool.get("parameters");
        if (parameters == null) {
            throw origin.error(ErrorKind.MISSING_KEY, at, "tool " + quoted(name) + " has no \"parameters\" (a tool without arguments has \"parameters\": "
                    + "{\"type\": \"object\", \"properties\": {}})");
        }
        if (!parameters.isObject()) throw origin.error(ErrorKind.BAD_SCHEMA, at.key("parameters"), "must be a JSON object, found " + kind(parameters));
        ObjectNode copy = (ObjectNode) tool.deepCopy();
        if (!flattened(parameters)) return new Read(copy, name, ToolShape.UPSTREAM, at.key("parameters"));
        copy.set("parameters", objectSchema(parameters, origin, at.key("parameters")));
        return new Read(copy, name, ToolShape.FLATTENED, at.key("parameters"));
    }

    private static Read function(JsonNode function, ToolShape shape, Set<String> allowed, JsonOrigin origin, JsonPath at)
            throws WorkbenchException {
        onlyKeys(function, allowed, origin, at, "an OpenAI function (" + String.join(", ", allowed.stream().sorted().toList()) + ")");
        String name = name(function, origin, at);
        JsonNode strict = function.get("strict");
        if (strict != null && !strict.isBoolean() && !strict.isNull()) throw origin.error(ErrorKind.BAD_SCHEMA, at.key("strict"), "must be true or false, found " + kind(strict));
        ObjectNode tool = NODES.objectNode();
        tool.put("name", name);
        if (description(function, true, origin, at)) tool.set("description", function.get("description"));
        JsonNode parameters = function.get("parameters");
        if (parameters == null || parameters.isNull()) {
            ObjectNode none = tool.putObject("parameters");
            none.put("type", "object");
            none.putObject("properties");
        } else if (!parameters.isObject()) {
            throw origin.error(ErrorKind.BAD_SCHEMA, at.key("parameters"), "must be a JSON schema object, found " + kind(parameters));
        } else {
            tool.set("parameters", parameters.deepCopy());
        }
        return new Read(tool, name, shape, at.key("parameters"));
    }

    private static String name(JsonNode tool, JsonOrigin origin, JsonPath at) throws WorkbenchException {
        JsonNode name = tool.get("name");
        if (name == null) throw origin.error(ErrorKind.MISSING_KEY, at, "the tool has no \"name\"");
        if (!name.isTextual() || name.textValue().isEmpty()) throw origin.error(ErrorKind.BAD_SCHEMA, at.key("name"), "must be a non-empty string, found " + kind(name));
        return name.textValue();
    }

    /** Whether a usable description is present; {@code nullMeansNone} for OpenAI objects, whose SDKs may write null. */
    private static boolean description(JsonNode tool, boolean nullMeansNone, JsonOrigin origin, JsonPath at) throws WorkbenchException {
        JsonNode d = tool.get("description");
        if (d == null || (nullMeansNone && d.isNull())) return false;
        if (!d.isTextual()) throw origin.error(ErrorKind.BAD_SCHEMA, at.key("description"), "must be a string, found " + kind(d));
        return true;
    }

    private static void onlyKeys(JsonNode object, Set<String> allowed, JsonOrigin origin, JsonPath at, String what) throws WorkbenchException {
        for (Iterator<String> it = object.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!allowed.contains(key)) throw origin.error(ErrorKind.UNKNOWN_KEY, at.key(key), "not a key of " + what);
        }
    }

    /**
     * Whether {@code parameters} is the flattened per-parameter map rather than a JSON schema: not empty, every
     * value an object (a schema has a string {@code type}, an array {@code required}, ...), and no
     * {@code properties} map or {@code $defs} of a schema written without its {@code type}.
     */
    static boolean flattened(JsonNode parameters) {
        if (parameters.isEmpty()) return false;
        for (JsonNode v : parameters) if (!v.isObject()) return false;
        if (parameters.has("$defs") || parameters.has("definitions")) return false;
        JsonNode properties = parameters.get("properties");
        if (properties == null) return true;
        for (JsonNode v : properties) if (!v.isObject()) return true;
        return false;
    }

    private static ObjectNode objectSchema(JsonNode flat, JsonOrigin origin, JsonPath at) throws WorkbenchException {
        ObjectNode schema = NODES.objectNode();
        schema.put("type", "object");
        ObjectNode properties = schema.putObject("properties");
        com.fasterxml.jackson.databind.node.ArrayNode required = NODES.arrayNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = flat.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> parameter = it.next();
            ObjectNode spec = (ObjectNode) parameter.getValue().deepCopy();
            JsonNode flag = spec.remove("required");
            if (flag != null && !flag.isBoolean()) {
                throw origin.error(ErrorKind.BAD_SCHEMA, at.key(parameter.getKey()).key("required"), "must be true or false in the flattened shape, found " + kind(flag));
            }
            if (flag != null && flag.booleanValue()) required.add(parameter.getKey());
            properties.set(parameter.getKey(), spec);
        }
        if (!required.isEmpty()) schema.set("required", required);
        return schema;
    }


    private static String keys(JsonNode object) {
        StringBuilder out = new StringBuilder();
        for (Iterator<String> it = object.fieldNames(); it.hasNext(); ) {
            out.append(out.isEmpty() ? "" : ", ").append(quoted(it.next()));
        }
        return out.isEmpty() ? "none" : out.toString();
    }
}
