package dev.needlewb.reports.toolcalls;

import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.tokenizer.PythonJson;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ToolCallCaseTest {
    static final String LIGHTS = "{\"name\":\"set_lights\",\"parameters\":{\"type\":\"object\",\"properties\":{\"room\":{\"type\":\"string\"},"
            + "\"brightness\":{\"type\":\"integer\"}},\"required\":[\"room\"]}}";

    @Test
    void readsUpstreamsFineTuningLinesAndTheWorkbenchFormat() throws Exception {
        // upstream's README example (lists), its Needle 1 form (JSON text in strings, flattened tools), the function_calls
        // alias, a system turn, and the workbench's own "expected"
        String upstream = "{\"query\": \"dim the kitchen to 10\", \"tools\": [" + LIGHTS + "], \"answers\": [{\"name\": \"set_lights\","
                + " \"arguments\": {\"room\": \"kitchen\", \"brightness\": 10}}], \"reasoning\": \"'kitchen' -> room\"}";
        String legacy = "{\"query\": \"What's the weather in Paris?\", \"tools\": \"[{\\\"name\\\":\\\"get_weather\\\",\\\"description\\\":"
                + "\\\"Get current weather for a city.\\\",\\\"parameters\\\":{\\\"location\\\":{\\\"type\\\":\\\"string\\\",\\\"description\\\":"
                + "\\\"City name.\\\",\\\"required\\\":true}}}]\", \"answers\": \"[{\\\"name\\\":\\\"get_weather\\\",\\\"arguments\\\":{\\\"location\\\":\\\"Paris\\\"}}]\"}";
        String alias = "{\"query\": \"hi\", \"system\": \"date: 2026-07-21\", \"tools\": [" + LIGHTS + "], \"function_calls\": []}";
        String workbench = "{\"id\": \"w1\", \"query\": \"lights on\", \"tools\": [{\"type\": \"function\", \"function\": " + LIGHTS + "}],"
                + " \"expected\": [{\"arguments\": {\"room\": \"hall\"}, \"name\": \"set_lights\"}]}";
        String untested = "{\"query\": \"no tools at all\"}";
        List<ToolCallCase> cases = ToolCallCase.parse(String.join("\n", upstream, legacy, "", alias, workbench, untested) + "\n", "c.jsonl");
        assertThat(cases).extracting(ToolCallCase::id).containsExactly("line 1", "line 2", "line 4", "w1", "line 6");
        assertThat(cases).extracting(ToolCallCase::expectedFrom).containsExactly("answers", "answers", "function_calls", "expected", null);
        assertThat(cases).extracting(c -> c.tools().shapes()).containsExactly("upstream", "flattened", "upstream", "openai", "none");
        assertThat(PythonJson.dumps(cases.get(1).expected(), PythonJson.Separators.COMPACT))
                .isEqualTo("[{\"name\":\"get_weather\",\"arguments\":{\"location\":\"Paris\"}}]");
        assertThat(PythonJson.dumps(cases.get(3).expected(), PythonJson.Separators.COMPACT))
                .as("calls are read as {name, arguments}").isEqualTo("[{\"name\":\"set_lights\",\"arguments\":{\"room\":\"hall\"}}]");
        assertThat(cases.get(2).system()).isEqualTo("date: 2026-07-21");
        assertThat(cases.get(0).system()).isEmpty();
        assertThat(cases.get(4).tools().size()).isZero();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
        "{\"query\": \"q\", \"tools\": [" + LIGHTS + "], \"answers\": [{\"name\": \"set_alarm\", \"arguments\": {}}]}"
                + "|c.jsonl: line 2: $.answers[0].name: \"set_alarm\" is not one of the case's tools (\"set_lights\")",
        "{\"query\": \"q\", \"tools\": [" + LIGHTS + "], \"answers\": [{\"name\": \"set_lights\", \"arguments\": {\"room\": \"a\", \"colour\": 1}}]}"
                + "|c.jsonl: line 2: $.answers[0].arguments.colour: not a parameter of \"set_lights\"",
        "{\"query\": \"q\", \"tools\": [" + LIGHTS + "], \"answers\": [{\"name\": \"set_lights\", \"arguments\": \"{}\"}]}"
                + "|c.jsonl: line 2: $.answers[0].arguments: must be an object, found string",
        "{\"query\": \"q\", \"tools\": [" + LIGHTS + "], \"answers\": [{\"name\": \"set_lights\"}]}|c.jsonl: line 2: $.answers[0].arguments: must be an object, found nothing",
        "{\"query\": \"q\", \"tools\": [" + LIGHTS + "], \"answers\": [{\"name\": \"set_lights\", \"arguments\": {}, \"id\": 3}]}"
                + "|c.jsonl: line 2: $.answers[0].id: not a key of a call (name, arguments)",
        "{\"query\": \"q\", \"tools\": [], \"answers\": {\"name\": \"f\"}}|c.jsonl: line 2: $.answers: must be an array of calls {\"name\", \"arguments\"}, found object",
        "{\"query\": \"q\", \"tools\": [], \"answers\": \"[{\\\"name\\\":\"}|c.jsonl: line 2: $.answers(text): calls given as a string must hold JSON",
        "{\"query\": \"q\", \"tools\": [], \"answers\": [], \"expected\": []}|c.jsonl: line 2: $.answers: a case gives its calls once: \"expected\" is here too",
        "{\"query\": \"\", \"tools\": []}|c.jsonl: line 2: $.query: must be a non-empty string, found string",
        "{\"tools\": []}|c.jsonl: line 2: $.query: must be a non-empty string, found nothing",
        "{\"query\": \"q\", \"system\": 1}|c.jsonl: line 2: $.system: must be a string, found number",
        "{\"query\": \"q\", \"tools\": \"[{\\\"name\\\": \\\"f\\\"}]\"}|c.jsonl: line 2: $.tools(text)[0]: tool \"f\" has no \"parameters\"",
        "{\"query\": \"q\", \"tools\": [{\"api\": \"f\"}]}|c.jsonl: line 2: $.tools[0]: not a tool: a tool is",
        "{\"query\": \"q\", \"tools\": [" + LIGHTS + "," + LIGHTS + "]}|c.jsonl: line 2: $.tools[1]: the name \"set_lights\" is used by tool 0 too",
        "[1, 2]|c.jsonl: line 2: $: a case must be a JSON object",
        "{\"query\": \"q\"|c.jsonl: line 2: not valid JSON",
    })
    void badLinesAreRefusedNamingFileLineAndPath(String line, String message) {
        String good = "{\"query\": \"fine\", \"tools\": []}";
        assertThatThrownBy(() -> ToolCallCase.parse(good + "\n" + line + "\n", "c.jsonl")).isInstanceOf(WorkbenchException.class)
                .hasMessageStartingWith(message);
    }

    @Test
    void aFileWithoutCasesIsRefused() {
        refused(ErrorKind.BAD_SCHEMA, () -> ToolCallCase.parse("\n  \n", "c.jsonl"));
    }
}
