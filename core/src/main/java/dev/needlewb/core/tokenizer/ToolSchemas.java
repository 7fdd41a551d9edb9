package dev.needlewb.core.tokenizer;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.needlewb.core.WorkbenchException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A validated tools list: a JSON array of objects, each with a non-empty string {@code name},
 * an object {@code parameters} and optionally a string {@code description} (the shape
 * upstream's {@code agent.tools.build_schema} produces), names unique. The tree keeps the
 * file's key order and values, parsed the way Python's {@code json.load} reads them (floats as
 * doubles, integers exact, NaN/Infinity accepted), so {@link #toJson} can reproduce upstream's
 * {@code json.dumps}.
 */
public final class ToolSchemas {
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private final JsonNode tools;
    private final List<String> names;

    private ToolSchemas(JsonNode tools, List<String> names) {
        this.tools = tools;
        this.names = names;
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
            throw new WorkbenchException(file + ": tools file is not valid UTF-8");
        }
        return parse(text, file.toString());
    }

    /** Parses tools JSON text; {@code source} names it in errors. */
    public static ToolSchemas parse(String json, String source) throws WorkbenchException {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JacksonException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + " column " + at.getColumnNr();
            throw new WorkbenchException(source + ": not valid JSON" + where + ": " + e.getOriginalMessage());
        }
        if (root == null || root.isMissingNode()) throw new WorkbenchException(source + ": tools file is empty");
        if (!root.isArray()) throw new WorkbenchException(source + ": tools must be a JSON array of tool objects, found " + kind(root));
        List<String> names = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < root.size(); i++) {
            JsonNode tool = root.get(i);
            String at = source + ": tool " + i;
            if (!tool.isObject()) throw new WorkbenchException(at + " must be an object with name and parameters, found " + kind(tool));
            JsonNode name = tool.get("name");
            if (name == null || !name.isTextual() || name.textValue().isEmpty()) {
                throw new WorkbenchException(at + ": \"name\" must be a non-empty string");
            }
            at = source + ": tool " + i + " (" + name.textValue() + ")";
            JsonNode description = tool.get("description");
            if (description != null && !description.isTextual()) {
                throw new WorkbenchException(at + ": \"description\" must be a string, found " + kind(description));
            }
            JsonNode parameters = tool.get("parameters");
            if (parameters == null || !parameters.isObject()) {
                throw new WorkbenchException(at + ": \"parameters\" must be a JSON schema object, found "
                        + (parameters == null ? "nothing" : kind(parameters)));
            }
            if (!seen.add(name.textValue())) throw new WorkbenchException(at + ": the name is used by an earlier tool");
            names.add(name.textValue());
        }
        return new ToolSchemas(root, List.copyOf(names));
    }

    private static String kind(JsonNode node) {
        return node.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The tool names in file order. */
    public List<String> names() { return names; }

    public int size() { return names.size(); }

    /** A copy of tool {@code i}'s object as read. */
    public JsonNode tool(int i) { return tools.get(i).deepCopy(); }

    /** Tool {@code i} alone as {@code json.dumps(tool, separators=...)} writes it. */
    public String toolJson(int i, PythonJson.Separators separators) {
        return PythonJson.dumps(tools.get(i), separators);
    }

    /** The tools at {@code indices}, in that order (e.g. the ones retrieval kept). */
    public ToolSchemas select(int[] indices) {
        com.fasterxml.jackson.databind.node.ArrayNode kept = JSON.createArrayNode();
        List<String> keptNames = new ArrayList<>();
        for (int i : indices) {
            kept.add(tools.get(i).deepCopy());
            keptNames.add(names.get(i));
        }
        return new ToolSchemas(kept, List.copyOf(keptNames));
    }

    /** The list as upstream's {@code json.dumps(tools, separators=...)} writes it. */
    public String toJson(PythonJson.Separators separators) {
        return PythonJson.dumps(tools, separators);
    }
}
