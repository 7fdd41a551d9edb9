package dev.needlewb.core.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.needlewb.core.WorkbenchException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ToolSchemasTest {
    @Test
    void keepsNamesInOrder() throws Exception {
        ToolSchemas tools = ToolSchemas.parse("""
                [{"name": "b", "parameters": {}}, {"name": "a", "description": "d", "parameters": {"type": "object"}}]""", "t.json");
        assertThat(tools.names()).containsExactly("b", "a");
    }

    @Test
    void malformedToolsAreRefusedWithTheirPlace() {
        refuse("{\"name\": \"x\"}", "t.json: tools must be a JSON array of tool objects, found object");
        refuse("[1]", "t.json: tool 0 must be an object with name and parameters, found number");
        refuse("[{\"parameters\": {}}]", "t.json: tool 0: \"name\" must be a non-empty string");
        refuse("[{\"name\": \"f\", \"parameters\": []}]", "t.json: tool 0 (f): \"parameters\" must be a JSON schema object, found array");
        refuse("[{\"name\": \"f\"}]", "t.json: tool 0 (f): \"parameters\" must be a JSON schema object, found nothing");
        refuse("[{\"name\": \"f\", \"description\": 3, \"parameters\": {}}]", "t.json: tool 0 (f): \"description\" must be a string, found number");
        refuse("[{\"name\": \"f\", \"parameters\": {}}, {\"name\": \"f\", \"parameters\": {}}]", "t.json: tool 1 (f): the name is used by an earlier tool");
        refuse("", "t.json: tools file is empty");
        assertThatThrownBy(() -> ToolSchemas.parse("[{\"name\": \"f\",\n \"parameters\": {}]", "t.json"))
                .isInstanceOf(WorkbenchException.class).hasMessageStartingWith("t.json: not valid JSON at line 2 column");
        assertThatThrownBy(() -> ToolSchemas.parse("[] []", "t.json"))
                .isInstanceOf(WorkbenchException.class).hasMessageStartingWith("t.json: not valid JSON at line 1 column");
    }

    @Test
    void readsAUtf8File(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("tools.json");
        Files.writeString(file, "[{\"name\": \"m\u00e9t\u00e9o\", \"parameters\": {\"type\": \"object\"}}]\n");
        ToolSchemas tools = ToolSchemas.read(file);
        assertThat(tools.names()).containsExactly("m\u00e9t\u00e9o");
        assertThat(tools.toJson(PythonJson.Separators.COMPACT)).isEqualTo("[{\"name\":\"m\\u00e9t\\u00e9o\",\"parameters\":{\"type\":\"object\"}}]");
    }

    @Test
    void fileThatIsNotUtf8IsRefused(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("tools.json");
        Files.write(file, new byte[] {'[', (byte) 0xFF, ']'});
        assertThatThrownBy(() -> ToolSchemas.read(file)).isInstanceOf(WorkbenchException.class)
                .hasMessage(file + ": tools file is not valid UTF-8");
    }

    private static void refuse(String json, String message) {
        assertThatThrownBy(() -> ToolSchemas.parse(json, "t.json")).isInstanceOf(WorkbenchException.class).hasMessage(message);
    }
}
