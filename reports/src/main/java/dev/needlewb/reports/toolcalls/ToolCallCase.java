package dev.needlewb.reports.toolcalls;

import static dev.needlewb.core.json.JsonText.kind;
import static dev.needlewb.core.json.JsonText.quoted;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.json.JsonOrigin;
import dev.needlewb.core.json.JsonPath;
import dev.needlewb.core.json.JsonText;
import dev.needlewb.core.tokenizer.PythonJson;
import dev.needlewb.core.io.TextFiles;
import dev.needlewb.core.tokenizer.ToolSchemas;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One line of a cases file, in either of two formats: the workbench's
 * {@code {"id"?, "query", "tools", "expected"?: [calls]}} or upstream's fine-tuning line
 * {@code {"query", "tools", "answers": [calls], "reasoning"?, "system"?}} (doc/finetuning.md; its
 * {@code function_calls} alias too). As upstream's {@code render_example} takes them, {@code tools}
 * and the calls may be JSON text in a string, missing tools are none, and a system text becomes a
 * system turn. Tools come in any {@link dev.needlewb.core.tokenizer.ToolShape}; each expected call is
 * {@code {"name", "arguments": {...}}} naming one of the line's tools and only its parameters.
 *
 * @param line         the case's line in its file (1-based)
 * @param expectedFrom the key the expected calls came from ({@code expected}, {@code answers},
 *                     {@code function_calls}), null when the line gives none
 */
public record ToolCallCase(String id, int line, String query, String system, ToolSchemas tools, JsonNode expected, String expectedFrom) {
    /** The name of the built-in case set (a resource of the workbench). */
    public static final String BUILTIN = "builtin";
    private static final List<String> CALL_KEYS = List.of("expected", "answers", "function_calls");
    /** A case is a query and its tools, a few KB: a thousand times the built-in set. */
    private static final long MAX_CASES_BYTES = 256L << 20;

    /** Reads {@code file}, or the built-in set when it is named {@value #BUILTIN} and no such file exists. */
    public static List<ToolCallCase> read(Path file) throws WorkbenchException {
        return parse(text(file), source(file));
    }

    /** The text of {@code file} (or of the built-in set), whose lines {@link #parseLine} reads one at a time. */
    public static String text(Path file) throws WorkbenchException {
        if (isBuiltin(file)) {
            try (InputStream in = ToolCallCase.class.getResourceAsStream("/toolcalls/builtin-cases.jsonl")) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalStateException("the built-in cases are part of the jar", e);
            }
        }
        return TextFiles.readUtf8(file, "tool-call cases", MAX_CASES_BYTES);
    }

    /** How errors name {@code file}. */
    public static String source(Path file) {
        return isBuiltin(file) ? "builtin cases" : file.toString();
    }

    private static boolean isBuiltin(Path file) {
        return file.toString().equals(BUILTIN) && !Files.exists(file);
    }

    /** The lines of a cases text, as {@link ToolCallCase#line()} counts them. */
    public static String[] lines(String text) {
        return text.split("\n", -1);
    }

    /** The cases of a text read by {@link #text}, errors naming {@code source}. */
    public static List<ToolCallCase> parse(String text, String source) throws WorkbenchException {
        List<ToolCallCase> cases = new ArrayList<>();
        String[] lines = lines(text);
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].isBlank()) continue;
            cases.add(parseLine(lines[i], source, i + 1));
        }
        if (cases.isEmpty()) throw new WorkbenchException(ErrorKind.BAD_SCHEMA, source + ": no cases");
        return cases;
    }

    /** Line {@code line} (1-based) of {@code source}, not blank. */
    public static ToolCallCase parseLine(String text, String source, int line) throws WorkbenchException {
        JsonOrigin origin = JsonOrigin.line(source, line);
        JsonNode node;
        try {
            node = PythonJson.parse(text.strip());
        } catch (JacksonException e) {
            throw new WorkbenchException(ErrorKind.BAD_JSON, source + ": line " + line + ": not valid JSON: " + e.getOriginalMessage());
        }
        return of(node, origin, line);
    }

    private static ToolCallCase of(JsonNode node, JsonOrigin origin, int line) throws WorkbenchException {
        JsonPath root = JsonPath.ROOT;
        if (!node.isObject()) throw origin.error(ErrorKind.BAD_SCHEMA, root, "a case must be a JSON object {\"query\", \"tools\", \"answers\"|\"expected\"}");
        String query = text(node, "query", true, origin);
        String system = text(node, "system", false, origin);
        text(node, "reasoning", false, origin);
        JsonNode toolsValue = node.get("tools");
        ToolSchemas tools = ToolSchemas.of(toolsValue == null ? JsonNodeFactory.instance.arrayNode() : toolsValue, origin.within(root.key("tools")));
        String expectedFrom = null;
        for (String key : CALL_KEYS) {
            if (!node.has(key)) continue;
            if (expectedFrom != null) throw origin.error(ErrorKind.BAD_SCHEMA, root.key(key), "a case gives its calls once: \"" + expectedFrom + "\" is here too");
            expectedFrom = key;
        }
        JsonNode expected = expectedFrom == null ? null : calls(node.get(expectedFrom), tools, origin, root.key(expectedFrom));
        JsonNode id = node.get("id");
        return new ToolCallCase(id == null ? "line " + line : id.asText(), line, query, system == null ? "" : system, tools, expected, expectedFrom);
    }

    private static String text(JsonNode node, String key, boolean required, JsonOrigin origin) throws WorkbenchException {
        JsonNode v = node.get(key);
        if (v == null && !required) return null;
        if (v == null || !v.isTextual() || (required && v.textValue().isBlank())) {
            throw origin.error(ErrorKind.BAD_SCHEMA, JsonPath.ROOT.key(key), "must be a" + (required ? " non-empty" : "") + " string"
                    + (v == null ? ", found nothing" : ", found " + kind(v)));
        }
        return v.textValue();
    }

    /** The expected calls as {@code [{"name", "arguments"}]}, each naming a tool of the case and only its parameters. */
    private static JsonNode calls(JsonNode value, ToolSchemas tools, JsonOrigin origin, JsonPath at) throws WorkbenchException {
        JsonNode list = value;
        if (value.isTextual()) {
            at = at.text();
            try {
                list = PythonJson.parse(value.textValue());
            } catch (JacksonException e) {
                throw origin.error(ErrorKind.BAD_JSON, at, "calls given as a string must hold JSON: " + e.getOriginalMessage());
            }
        }
        if (list == null || !list.isArray()) throw origin.error(ErrorKind.BAD_SCHEMA, at, "must be an array of calls {\"name\", \"arguments\"}, found " + (list == null ? "nothing" : kind(list)));
        ArrayNode calls = JsonNodeFactory.instance.arrayNode();
        for (int i = 0; i < list.size(); i++) {
            JsonNode call = list.get(i);
            JsonPath c = at.index(i);
            if (!call.isObject()) throw origin.error(ErrorKind.BAD_SCHEMA, c, "a call must be an object {\"name\", \"arguments\"}, found " + kind(call));
            for (Iterator<String> it = call.fieldNames(); it.hasNext(); ) {
                String key = it.next();
                if (!key.equals("name") && !key.equals("arguments")) throw origin.error(ErrorKind.UNKNOWN_KEY, c.key(key), "not a key of a call (name, arguments)");
            }
            JsonNode name = call.get("name");
            if (name == null || !name.isTextual()) throw origin.error(ErrorKind.BAD_SCHEMA, c.key("name"), "must be a tool's name, found " + (name == null ? "nothing" : kind(name)));
            int tool = tools.names().indexOf(name.textValue());
            if (tool < 0) {
                throw origin.error(ErrorKind.UNKNOWN_KEY, c.key("name"), quoted(name.textValue()) + " is not one of the case's tools ("
                        + (tools.size() == 0 ? "it has none" : tools.names().stream().map(JsonText::quoted).collect(Collectors.joining(", "))) + ")");
            }
            JsonNode arguments = call.get("arguments");
            if (arguments == null || !arguments.isObject()) {
                throw origin.error(ErrorKind.BAD_SCHEMA, c.key("arguments"), "must be an object, found " + (arguments == null ? "nothing" : kind(arguments)));
            }
            JsonNode properties = tools.argumentsSchema(tool).path("properties");
            for (Iterator<Map.Entry<String, JsonNode>> it = arguments.properties().iterator(); it.hasNext(); ) {
                String key = it.next().getKey();
                if (!properties.has(key)) throw origin.error(ErrorKind.UNKNOWN_KEY, c.key("arguments").key(key), "not a parameter of " + quoted(name.textValue()));
            }
            ObjectNode normalized = calls.addObject();
            normalized.put("name", name.textValue());
            normalized.set("arguments", arguments);
        }
        return calls;
    }
}
