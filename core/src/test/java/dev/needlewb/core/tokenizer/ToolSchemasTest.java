package dev.needlewb.core.tokenizer;

import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.node.TextNode;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.json.JsonException;
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
        JsonException e = assertThrows(JsonException.class, () -> ToolSchemas.of(
                TextNode.valueOf("[{\"name\":\"f\",\"parameters\":{}}, {\"name\":\"f\",\"parameters\":{}}]"),
                JsonOrigin.line("cases.jsonl", 3).within(JsonPath.ROOT.key("tools"))));
        assertThat(e.kind()).isEqualTo(ErrorKind.BAD_SCHEMA);
        assertThat(e.source()).isEqualTo("cases.jsonl");
        assertThat(e.line()).isEqualTo(3);
        assertThat(e.path()).hasToString("$.tools(text)[1]");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "{\"name\": \"x\"}|BAD_SCHEMA|$",
        "[1]|BAD_SCHEMA|$[0]",
        "[{\"type\": \"function\", \"function\": {\"description\": \"d\"}}]|MISSING_KEY|$[0].function",
        "[{\"type\": \"function\", \"name\": \"\"}]|BAD_SCHEMA|$[0].name",
        "[{\"name\": 7, \"parameters\": {}}]|BAD_SCHEMA|$[0].name",
        "[{\"type\": \"retrieval\", \"function\": {\"name\": \"f\"}}]|UNSUPPORTED|$[0].type",
        "[{\"type\": \"function\", \"function\": {\"name\": \"f\", \"parameters\": {}, \"returns\": {}}}]|UNKNOWN_KEY|$[0].function.returns",
        "[{\"type\": \"function\", \"function\": {\"name\": \"f\"}, \"cache\": 1}]|UNKNOWN_KEY|$[0].cache",
        "[{\"type\": \"function\", \"name\": \"f\", \"parameters\": []}]|BAD_SCHEMA|$[0].parameters",
        "[{\"name\": \"f\", \"parameters\": []}]|BAD_SCHEMA|$[0].parameters",
        "[{\"name\": \"f\"}]|MISSING_KEY|$[0]",
        "[{\"name\": \"f\", \"description\": 3, \"parameters\": {}}]|BAD_SCHEMA|$[0].description",
        "[{\"name\": \"f\", \"parameters\": {\"a\": {\"type\": \"string\", \"required\": \"yes\"}}}]|BAD_SCHEMA|$[0].parameters.a.required",
        "[{\"name\": \"f\", \"parameters\": {}}, {\"type\": \"function\", \"name\": \"f\"}]|BAD_SCHEMA|$[1]",
    })
    void malformedToolsAreRefusedWithFileLineAndPath(String json, ErrorKind kind, String path) {
        JsonException e = assertThrows(JsonException.class, () -> ToolSchemas.parse(json, "t.json"));
        assertThat(e.kind()).isEqualTo(kind);
        assertThat(e.source()).isEqualTo("t.json");
        assertThat(e.line()).isEqualTo(1);
        assertThat(e.path()).hasToString(path);
    }

    /** The wording is the point here: a value that is no tool is answered with the shapes a tool may take. */
    @Test
    void somethingThatIsNoToolIsAnsweredWithTheShapesAToolTakes() {
        assertThatThrownBy(() -> ToolSchemas.parse("[{\"title\": \"f\", \"schema\": {}}]", "t.json"))
                .hasMessageContaining("t.json: line 1: $[0]: not a tool: a tool is {\"name\", \"parameters\": JSON schema} (upstream)")
                .hasMessageContaining("(OpenAI, also flat); found keys \"title\", \"schema\"");
    }

    @Test
    void errorsNameTheLineOfAMultiLineFile() {
        String json = "[\n  {\"name\": \"a\", \"parameters\": {}},\n  {\"name\": \"b\",\n   \"description\": [\"x\"],\n   \"parameters\": {}}\n]";
        JsonException e = assertThrows(JsonException.class, () -> ToolSchemas.parse(json, "t.json"));
        assertThat(e.line()).isEqualTo(4);
        assertThat(e.path()).hasToString("$[1].description");
        // a syntax error has no JSON path: its line and column are in the parser's words
        assertThat(refused(ErrorKind.BAD_JSON, () -> ToolSchemas.parse("[{\"name\": \"f\",\n \"parameters\": {}]", "t.json")))
                .hasMessageStartingWith("t.json: not valid JSON at line 2 column");
        assertThat(refused(ErrorKind.BAD_JSON, () -> ToolSchemas.parse("[] []", "t.json")))
                .hasMessageStartingWith("t.json: not valid JSON at line 1 column");
        refused(ErrorKind.BAD_JSON, () -> ToolSchemas.parse("", "t.json"));
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
        refused(ErrorKind.BAD_TEXT, () -> ToolSchemas.read(file));
    }
}
