package dev.needlewb.reports.toolcalls;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.TextFiles;
import dev.needlewb.core.tokenizer.ToolSchemas;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One line of a cases file: {@code {"id": optional, "query": "...", "tools": [...], "expected": optional [calls]}}.
 * The tools are validated as a tools file is; the expected calls, when given, must be a JSON array.
 */
public record ToolCallCase(String id, String query, ToolSchemas tools, JsonNode expected) {
    private static final JsonMapper JSON = new JsonMapper();
    /** The name of the built-in case set (a resource of the workbench). */
    public static final String BUILTIN = "builtin";
    /** A case is a query and its tools, a few KB: a thousand times the built-in set. */
    private static final long MAX_CASES_BYTES = 256L << 20;

    /** Reads {@code file}, or the built-in set when it is named {@value #BUILTIN} and no such file exists. */
    public static List<ToolCallCase> read(Path file) throws WorkbenchException {
        if (file.toString().equals(BUILTIN) && !Files.exists(file)) {
            try (InputStream in = ToolCallCase.class.getResourceAsStream("/toolcalls/builtin-cases.jsonl")) {
                return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), "builtin cases");
            } catch (IOException e) {
                throw new IllegalStateException("the built-in cases are part of the jar", e);
            }
        }
        return parse(TextFiles.readUtf8(file, "tool-call cases", MAX_CASES_BYTES), file.toString());
    }

    static List<ToolCallCase> parse(String text, String source) throws WorkbenchException {
        List<ToolCallCase> cases = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty()) continue;
            String at = source + ": line " + (i + 1);
            JsonNode node;
            try {
                node = JSON.readTree(line);
            } catch (JacksonException e) {
                throw new WorkbenchException(at + ": not valid JSON: " + e.getOriginalMessage());
            }
            if (node == null || !node.isObject()) throw new WorkbenchException(at + ": a case must be a JSON object");
            JsonNode query = node.get("query");
            if (query == null || !query.isTextual() || query.textValue().isBlank()) {
                throw new WorkbenchException(at + ": \"query\" must be a non-empty string");
            }
            JsonNode tools = node.get("tools");
            if (tools == null) throw new WorkbenchException(at + ": \"tools\" is missing");
            JsonNode expected = node.get("expected");
            if (expected != null && !expected.isArray()) throw new WorkbenchException(at + ": \"expected\" must be an array of calls");
            JsonNode id = node.get("id");
            String name = id == null ? "case" + (cases.size() + 1) : id.asText();
            cases.add(new ToolCallCase(name, query.textValue(), ToolSchemas.parse(tools.toString(), at + " tools"), expected));
        }
        if (cases.isEmpty()) throw new WorkbenchException(source + ": no cases");
        return cases;
    }
}
