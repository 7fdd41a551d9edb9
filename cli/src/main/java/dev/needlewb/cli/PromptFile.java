package dev.needlewb.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.TextFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The prompts of a parity sweep. A {@code .jsonl} file holds one JSON object per line,
 * {@code {"id"?: "...", "prompt": "text"}} or {@code {"id"?: "...", "tokens": [1, 2, 3]}}; any other
 * file one text prompt per line. Blank lines are skipped; a prompt without an id is called
 * {@code line N}.
 */
final class PromptFile {
    /** Far more than any context's worth of prompts. */
    private static final long MAX_BYTES = 64L << 20;
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /** One prompt: text (encoded by each model's tokenizer) or token ids, exactly one of them set. */
    record Prompt(String id, int line, String text, int[] tokens) {}

    private PromptFile() {}

    static List<Prompt> read(Path file) throws WorkbenchException {
        String content = TextFiles.readUtf8(file, "prompts", MAX_BYTES);
        boolean jsonl = file.getFileName().toString().endsWith(".jsonl");
        List<Prompt> prompts = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        int lineNo = 0;
        for (String line : content.split("\r?\n", -1)) {
            lineNo++;
            if (line.isBlank()) continue;
            Prompt p = jsonl ? jsonLine(file, lineNo, line) : new Prompt("line " + lineNo, lineNo, line, null);
            if (!ids.add(p.id())) throw bad(ErrorKind.BAD_PROMPT, file, lineNo, "prompt id '" + p.id() + "' is given twice");
            prompts.add(p);
        }
        if (prompts.isEmpty()) throw new WorkbenchException(ErrorKind.BAD_PROMPT, file + ": no prompts (every line is blank)");
        return prompts;
    }

    private static Prompt jsonLine(Path file, int lineNo, String line) throws WorkbenchException {
        JsonNode node;
        try {
            node = JSON.readTree(line);
        } catch (JsonProcessingException e) {
            throw bad(ErrorKind.BAD_JSON, file, lineNo, "not JSON (" + e.getOriginalMessage().lines().findFirst().orElse("") + ")");
        }
        if (!node.isObject()) throw bad(ErrorKind.BAD_SCHEMA, file, lineNo, "a prompt line is a JSON object with \"prompt\" or \"tokens\"");
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!Set.of("id", "prompt", "tokens").contains(key)) {
                throw bad(ErrorKind.UNKNOWN_KEY, file, lineNo, "unknown key \"" + key + "\" (known: id, prompt, tokens)");
            }
        }
        JsonNode id = node.get("id");
        if (id != null && !id.isTextual() && !id.canConvertToExactIntegral()) throw bad(ErrorKind.BAD_SCHEMA, file, lineNo, "\"id\" must be a string or an integer");
        String name = id == null ? "line " + lineNo : id.asText();
        JsonNode text = node.get("prompt"), tokens = node.get("tokens");
        if ((text == null) == (tokens == null)) throw bad(ErrorKind.BAD_SCHEMA, file, lineNo, "give exactly one of \"prompt\" and \"tokens\"");
        if (text != null) {
            if (!text.isTextual() || text.asText().isEmpty()) throw bad(ErrorKind.BAD_SCHEMA, file, lineNo, "\"prompt\" must be a non-empty string");
            return new Prompt(name, lineNo, text.asText(), null);
        }
        if (!tokens.isArray() || tokens.isEmpty()) throw bad(ErrorKind.BAD_SCHEMA, file, lineNo, "\"tokens\" must be a non-empty array of token ids");
        int[] ids = new int[tokens.size()];
        for (int i = 0; i < ids.length; i++) {
            JsonNode t = tokens.get(i);
            if (!t.canConvertToInt() || !t.isIntegralNumber()) throw bad(ErrorKind.BAD_SCHEMA, file, lineNo, "tokens[" + i + "] is not a token id: " + t);
            ids[i] = t.intValue();
        }
        return new Prompt(name, lineNo, null, ids);
    }

    private static WorkbenchException bad(ErrorKind kind, Path file, int line, String what) {
        return new WorkbenchException(kind, file + ": line " + line + ": " + what);
    }
}
