package dev.needlewb.core.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.TextNode;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.json.JsonOrigin;
import dev.needlewb.core.json.JsonPath;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ToolSchemasTest {
    /** One tool in upstream's shape as build_schema writes it (name, description, parameters; required last). */
    static final String UPSTREAM = "[{\"name\":\"set_alarm\",\"description\":\"Set an alarm\",\"parameters\":{\"type\":\"object\","
            + "\"properties\":{\"hour\":{\"type\":\"integer\",\"description\":\"0-23\"},\"label\":{\"type\":\"string\"}},\"required\":[\"hour\"]}}]";
    /** The same tool in the three other shapes. */
    static final String OPENAI = "[{\"type\": \"function\", \"function\": {\"name\": \"set_alarm\", \"description\": \"Set an alarm\", \"strict\": true,"
            + " \"parameters\": {\"type\": \"object\", \"properties\": {\"hour\": {\"type\": \"integer\", \"description\": \"0-23\"},"
            + " \"label\": {\"type\": \"string\"}}, \"required\": [\"hour\"]}}}]";
    static final String OPENAI_FLAT = "[{\"type\":\"function\",\"name\":\"set_alarm\",\"description\":\"Set an alarm\",\"parameters\":{\"type\":\"object\","
            + "\"properties\":{\"hour\":{\"type\":\"integer\",\"description\":\"0-23\"},\"label\":{\"type\":\"string\"}},\"required\":[\"hour\"]}}]";
    static final String FLATTENED = "[{\"name\":\"set_alarm\",\"description\":\"Set an alarm\",\"parameters\":{"
            + "\"hour\":{\"type\":\"integer\",\"description\":\"0-23\",\"required\":true},\"label\":{\"type\":\"string\",\"required\":false}}}]";

    @Test
    void keepsNamesInOrder() throws Exception {
        ToolSchemas tools = ToolSchemas.parse("""
                [{"name": "b", "parameters": {}}, {"name": "a", "description": "d", "parameters": {"type": "object"}}]""", "t.json");
        assertThat(tools.names()).containsExactly("b", "a");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {UPSTREAM + "|upstream", OPENAI + "|openai", OPENAI_FLAT + "|openai-flat", FLATTENED + "|flattened"})
    void everyShapeReadsIntoUpstreamsShapeAndSaysWhichItWas(String json, String shape) throws Exception {
        ToolSchemas tools = ToolSchemas.parse(json, "t.json");
        assertThat(tools.shapes()).isEqualTo(shape);
        assertThat(tools.names()).containsExactly("set_alarm");
        assertThat(tools.toJson(PythonJson.Separators.COMPACT)).isEqualTo(UPSTREAM);
    }

    @Test
    void anUpstreamToolIsRenderedAsWrittenAsUpstreamsTemplateDoes() throws Exception {
        // pydantic_schema's key order (description last) and keys build_schema never writes stay as they are
        String json = "[{\"name\":\"f\",\"parameters\":{\"properties\":{\"q\":{\"type\":\"string\"}},\"type\":\"object\"},\"description\":\"d\",\"returns\":\"str\"}]";
        ToolSchemas tools = ToolSchemas.parse(json, "t.json");
        assertThat(tools.shapes()).isEqualTo("upstream");
        assertThat(tools.toJson(PythonJson.Separators.COMPACT)).isEqualTo(json);
    }

    @Test
    void shapesAreToldApartByTheirParameters() throws Exception {
        // a JSON schema written without "type", an empty one, and a flattened tool with a parameter called "properties"
        assertThat(ToolSchemas.parse("[{\"name\":\"f\",\"parameters\":{\"properties\":{\"a\":{\"type\":\"string\"}}}}]", "t").shapes()).isEqualTo("upstream");
        assertThat(ToolSchemas.parse("[{\"name\":\"f\",\"parameters\":{}}]", "t").shapes()).isEqualTo("upstream");
        ToolSchemas flat = ToolSchemas.parse("[{\"name\":\"f\",\"parameters\":{\"properties\":{\"type\":\"string\",\"required\":true}}}]", "t");
        assertThat(flat.shapes()).isEqualTo("flattened");
        assertThat(flat.toJson(PythonJson.Separators.COMPACT))
                .isEqualTo("[{\"name\":\"f\",\"parameters\":{\"type\":\"object\",\"properties\":{\"properties\":{\"type\":\"string\"}},\"required\":[\"properties\"]}}]");
        // no parameter flagged: no "required" list, as build_schema leaves it out
        assertThat(ToolSchemas.parse("[{\"name\":\"f\",\"parameters\":{\"a\":{\"type\":\"string\"}}}]", "t").toJson(PythonJson.Separators.COMPACT))
                .isEqualTo("[{\"name\":\"f\",\"parameters\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}}}]");
        // an OpenAI function without parameters takes no arguments; mixed lists name every shape
        ToolSchemas mixed = ToolSchemas.parse("[{\"type\":\"function\",\"function\":{\"name\":\"ping\",\"description\":null}}," + FLATTENED.substring(1), "t");
        assertThat(mixed.shapes()).isEqualTo("openai+flattened");
        assertThat(mixed.toolJson(0, PythonJson.Separators.COMPACT)).isEqualTo("{\"name\":\"ping\",\"parameters\":{\"type\":\"object\",\"properties\":{}}}");
        assertThat(ToolSchemas.parse("[]", "t").shapes()).isEqualTo("none");
    }

    @Test
    void toolsGivenAsAStringOfJsonAreReadLikeAList() throws Exception {
        ToolSchemas tools = ToolSchemas.of(TextNode.valueOf(FLATTENED), JsonOrigin.line("cases.jsonl", 3).within(JsonPath.ROOT.key("tools")));
        assertThat(tools.toJson(PythonJson.Separators.COMPACT)).isEqualTo(UPSTREAM);
        assertThatThrownBy(() -> ToolSchemas.of(TextNode.valueOf("[{\"name\":\"f\",\"parameters\":{}}, {\"name\":\"f\",\"parameters\":{}}]"),
                JsonOrigin.line("cases.jsonl", 3).within(JsonPath.ROOT.key("tools"))))
                .hasMessage("cases.jsonl: line 3: $.tools(text)[1]: the name \"f\" is used by tool 0 too");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "{\"name\": \"x\"}|t.json: line 1: $: tools must be a JSON array of tool objects, found object",
        "[1]|t.json: line 1: $[0]: not a tool: a tool is {\"name\", \"parameters\": JSON schema} (upstream)",
        "[{\"title\": \"f\", \"schema\": {}}]|t.json: line 1: $[0]: not a tool: a tool is",
        "[{\"title\": \"f\", \"schema\": {}}]|(OpenAI, also flat); found keys \"title\", \"schema\"",
        "[{\"type\": \"function\", \"function\": {\"description\": \"d\"}}]|t.json: line 1: $[0].function: the tool has no \"name\"",
        "[{\"type\": \"function\", \"name\": \"\"}]|t.json: line 1: $[0].name: must be a non-empty string, found string",
        "[{\"name\": 7, \"parameters\": {}}]|t.json: line 1: $[0].name: must be a non-empty string, found number",
        "[{\"type\": \"retrieval\", \"function\": {\"name\": \"f\"}}]|t.json: line 1: $[0].type: only function tools are supported, found \"retrieval\"",
        "[{\"type\": \"function\", \"function\": {\"name\": \"f\", \"parameters\": {}, \"returns\": {}}}]|t.json: line 1: $[0].function.returns:"
                + " not a key of an OpenAI function (description, name, parameters, strict)",
        "[{\"type\": \"function\", \"function\": {\"name\": \"f\"}, \"cache\": 1}]|t.json: line 1: $[0].cache: not a key of an OpenAI tool",
        "[{\"type\": \"function\", \"name\": \"f\", \"parameters\": []}]|t.json: line 1: $[0].parameters: must be a JSON schema object, found array",
        "[{\"name\": \"f\", \"parameters\": []}]|t.json: line 1: $[0].parameters: must be a JSON object, found array",
        "[{\"name\": \"f\"}]|t.json: line 1: $[0]: tool \"f\" has no \"parameters\"",
        "[{\"name\": \"f\", \"description\": 3, \"parameters\": {}}]|t.json: line 1: $[0].description: must be a string, found number",
        "[{\"name\": \"f\", \"parameters\": {\"a\": {\"type\": \"string\", \"required\": \"yes\"}}}]|t.json: line 1: $[0].parameters.a.required:"
                + " must be true or false in the flattened shape, found string",
        "[{\"name\": \"f\", \"parameters\": {}}, {\"type\": \"function\", \"name\": \"f\"}]|t.json: line 1: $[1]: the name \"f\" is used by tool 0 too",
    })
    void malformedToolsAreRefusedWithFileLineAndPath(String json, String message) {
        assertThatThrownBy(() -> ToolSchemas.parse(json, "t.json")).isInstanceOf(WorkbenchException.class).hasMessageContaining(message);
    }

    @Test
    void errorsNameTheLineOfAMultiLineFile() {
        String json = "[\n  {\"name\": \"a\", \"parameters\": {}},\n  {\"name\": \"b\",\n   \"description\": [\"x\"],\n   \"parameters\": {}}\n]";
        assertThatThrownBy(() -> ToolSchemas.parse(json, "t.json")).hasMessage("t.json: line 4: $[1].description: must be a string, found array");
        assertThatThrownBy(() -> ToolSchemas.parse("[{\"name\": \"f\",\n \"parameters\": {}]", "t.json"))
                .isInstanceOf(WorkbenchException.class).hasMessageStartingWith("t.json: not valid JSON at line 2 column");
        assertThatThrownBy(() -> ToolSchemas.parse("[] []", "t.json"))
                .isInstanceOf(WorkbenchException.class).hasMessageStartingWith("t.json: not valid JSON at line 1 column");
        assertThatThrownBy(() -> ToolSchemas.parse("", "t.json")).hasMessage("t.json: tools file is empty");
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
}
