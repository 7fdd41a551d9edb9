package dev.needlewb.core.tokenizer;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.json.JsonException;
import dev.needlewb.core.json.JsonOrigin;
import dev.needlewb.core.json.JsonPath;
import dev.needlewb.core.json.JsonText;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A validated tools list: a JSON array of tools, each in one of the {@link ToolShape}s, read into
 * upstream's shape ({@link ToolNormalizer}), names unique. The tree keeps the values as Python's
 * {@code json.load} reads them (floats as doubles, integers exact, NaN/Infinity accepted), so
 * {@link #toJson} reproduces upstream's {@code json.dumps} of the same tools. Each tool remembers its
 * shape and where it came from, so an error in its schema names the file, line and JSON path the user
 * wrote.
 */
public final class ToolSchemas {
    /** One tool as read: its shape and where its {@code parameters} sit in the source. */
    private record Source(ToolShape shape, JsonPath parametersAt) {
        /**
         * The source path of {@code inParameters}, a path in the upstream-shape parameters: a flattened tool's
         * {@code properties.p...} was written as {@code parameters.p...}.
         */
        JsonPath of(JsonPath inParameters) {
            if (shape == ToolShape.FLATTENED && inParameters.size() >= 2 && "properties".equals(inParameters.keyAt(0))
                    && inParameters.keyAt(1) != null) {
                return parametersAt.key(inParameters.keyAt(1)).append(inParameters.from(2));
            }
            return parametersAt.append(inParameters);
        }
    }

    private final ArrayNode tools;
    private final List<String> names;
    private final List<Source> sources;
    private final JsonOrigin origin;

    private ToolSchemas(ArrayNode tools, List<String> names, List<Source> sources, JsonOrigin origin) {
        this.tools = tools;
        this.names = names;
        this.sources = sources;
        this.origin = origin;
    }

    /** Reads a tools file (UTF-8 JSON). */
    public static ToolSchemas read(Path file) throws WorkbenchException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw WorkbenchException.cannotRead(file, e);
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new WorkbenchException(ErrorKind.BAD_TEXT, file + ": tools file is not valid UTF-8");
        }
        return parse(text, file.toString());
    }

    /** Parses a tools document; {@code source} names it in errors. */
    public static ToolSchemas parse(String json, String source) throws WorkbenchException {
        JsonNode root;
        try {
            root = PythonJson.parse(json);
        } catch (JacksonException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + " column " + at.getColumnNr();
            throw new WorkbenchException(ErrorKind.BAD_JSON, source + ": not valid JSON" + where + ": " + e.getOriginalMessage());
        }
        if (root == null || root.isMissingNode()) throw new WorkbenchException(ErrorKind.BAD_JSON, source + ": tools file is empty");
        return of(root, JsonOrigin.document(source, json));
    }

    /**
     * The tools in {@code value}, an already parsed array or, as upstream's fine-tuning lines may hold it, a string
     * of JSON text; {@code origin} places {@code value} in its source for errors.
     */
    public static ToolSchemas of(JsonNode value, JsonOrigin origin) throws WorkbenchException {
        JsonNode root = value;
        if (value.isTextual()) {
            origin = origin.within(JsonPath.ROOT.text());
            try {
                root = PythonJson.parse(value.textValue());
            } catch (JacksonException e) {
                throw origin.error(ErrorKind.BAD_JSON, JsonPath.ROOT, "tools given as a string must hold JSON: " + e.getOriginalMessage());
            }
            if (root == null || root.isMissingNode()) throw origin.error(ErrorKind.BAD_JSON, JsonPath.ROOT, "tools given as a string are empty");
        }
        if (!root.isArray()) throw origin.error(ErrorKind.BAD_SCHEMA, JsonPath.ROOT, "tools must be a JSON array of tool objects, found " + JsonText.kind(root));
        ArrayNode tools = JsonNodeFactory.instance.arrayNode();
        List<String> names = new ArrayList<>();
        List<Source> sources = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < root.size(); i++) {
            ToolNormalizer.Read tool = ToolNormalizer.read(root.get(i), origin, JsonPath.ROOT.index(i));
            Integer earlier = seen.putIfAbsent(tool.name(), i);
            if (earlier != null) {
                throw origin.error(ErrorKind.BAD_SCHEMA, JsonPath.ROOT.index(i), "the name " + JsonText.quoted(tool.name()) + " is used by tool " + earlier + " too");
            }
            tools.add(tool.tool());
            names.add(tool.name());
            sources.add(new Source(tool.shape(), tool.parametersAt()));
        }
        return new ToolSchemas(tools, List.copyOf(names), List.copyOf(sources), origin);
    }

    /** The tool names in file order. */
    public List<String> names() { return names; }

    public int size() { return names.size(); }

    /** A copy of tool {@code i} in upstream's shape. */
    public JsonNode tool(int i) { return tools.get(i).deepCopy(); }

    public ToolShape shape(int i) { return sources.get(i).shape(); }

    /** The shapes the tools were written in, in order of first use, joined by '+' ({@code openai}, {@code upstream+flattened}); "none" without tools. */
    public String shapes() {
        Set<String> labels = new LinkedHashSet<>();
        for (Source s : sources) labels.add(s.shape().label);
        return labels.isEmpty() ? "none" : String.join("+", labels);
    }

    /**
     * The error for the part of tool {@code i}'s parameters at {@code inParameters} (a path in its upstream-shape
     * schema), placed where the user wrote it: {@code file: line N: $[i].parameters... (tool "name"): what}.
     */
    public JsonException parametersError(ErrorKind kind, int i, JsonPath inParameters, String what) {
        return origin.error(kind, sources.get(i).of(inParameters), " (tool " + JsonText.quoted(names.get(i)) + ")", what);
    }

    /** An error about the list as a whole: {@code file: line N: $path: what}. */
    public JsonException error(ErrorKind kind, String what) {
        return origin.error(kind, JsonPath.ROOT, what);
    }

    /**
     * Tool {@code i}'s arguments schema: its parameters, or where a {@code $ref} at their root points
     * (within them; at most a few hops), so its {@code properties} and {@code required} can be read.
     */
    public JsonNode argumentsSchema(int i) {
        JsonNode parameters = tools.get(i).get("parameters");
        JsonNode at = parameters;
        for (int hops = 0; hops < 8 && at.path("$ref").isTextual() && at.get("$ref").textValue().startsWith("#"); hops++) {
            try {
                at = parameters.at(at.get("$ref").textValue().substring(1));
            } catch (IllegalArgumentException e) {
                break;
            }
        }
        return at;
    }

    /** Tool {@code i} alone as {@code json.dumps(tool, separators=...)} writes it. */
    public String toolJson(int i, PythonJson.Separators separators) {
        return PythonJson.dumps(tools.get(i), separators);
    }

    /** The tools at {@code indices}, in that order (e.g. the ones retrieval kept). */
    public ToolSchemas select(int[] indices) {
        ArrayNode kept = JsonNodeFactory.instance.arrayNode();
        List<String> keptNames = new ArrayList<>();
        List<Source> keptSources = new ArrayList<>();
        for (int i : indices) {
            kept.add(tools.get(i).deepCopy());
            keptNames.add(names.get(i));
            keptSources.add(sources.get(i));
        }
        return new ToolSchemas(kept, List.copyOf(keptNames), List.copyOf(keptSources), origin);
    }

    /** The list as upstream's {@code json.dumps(tools, separators=...)} writes it. */
    public String toJson(PythonJson.Separators separators) {
        return PythonJson.dumps(tools, separators);
    }
}
