package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** generate/bench/eval with tools on the golden mini model: constrained answers, reports, and refused inputs. */
class ToolCallsCliTest {
    static final String WEATHER = "{\"name\":\"get_weather\",\"parameters\":{\"type\":\"object\",\"properties\":"
            + "{\"city\":{\"type\":\"string\",\"maxLength\":12},\"days\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":7}},\"required\":[\"city\"]}}";

    /** reports' mini cases (a resource of its test jar), as a file. */
    static Path miniCases() throws Exception {
        Path file = Files.createTempFile("mini-cases", ".jsonl");
        file.toFile().deleteOnExit();
        try (java.io.InputStream in = ToolCallsCliTest.class.getResourceAsStream("/toolcalls/mini-cases.jsonl")) {
            Files.copy(in, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        return file;
    }

    @Test
    void generateWithToolsAnswersAValidCallList(@TempDir Path dir) throws Exception {
        Path tools = Files.writeString(dir.resolve("tools.json"), "[" + WEATHER + "]");
        CliRun run = CliRun.of("generate", MiniVariants.mini().toString(), "--tools", tools.toString(), "--query", "Weather in Paris",
                "--mode", "exact", "--json");
        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode out = new ObjectMapper().readTree(run.out());
        assertThat(out.get("constrained").asBoolean()).isTrue();
        JsonNode calls = new ObjectMapper().readTree(out.get("calls").asText());
        assertThat(calls.isArray()).isTrue();
        for (JsonNode c : calls) {
            assertThat(c.get("name").asText()).isEqualTo("get_weather");
            assertThat(c.get("arguments").has("city")).isTrue();
            assertThat(c.get("arguments").get("city").asText().codePointCount(0, c.get("arguments").get("city").asText().length()))
                    .isLessThanOrEqualTo(12);
        }
        assertThat(out.get("text").asText()).endsWith("</tool_call><|im_end|>");
    }

    @Test
    void topToolsKeepsTheRetrievedToolsOnlyAndTheGrammarFollows(@TempDir Path dir) throws Exception {
        String alarm = "{\"name\":\"alarm\",\"parameters\":{\"type\":\"object\",\"properties\":{\"hour\":{\"type\":\"integer\"}}}}";
        String lights = "{\"name\":\"lights\",\"parameters\":{\"type\":\"object\",\"properties\":{\"on\":{\"type\":\"boolean\"}}}}";
        Path tools = Files.writeString(dir.resolve("tools.json"), "[" + WEATHER + "," + alarm + "," + lights + "]");
        CliRun run = CliRun.of("generate", MiniVariants.mini().toString(), "--tools", tools.toString(), "--query", "Weather in Paris",
                "--top-tools", "1", "--require-call", "--mode", "exact", "--json");
        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode out = new ObjectMapper().readTree(run.out());
        assertThat(out.get("tools_shown")).hasSize(1);
        String shown = out.get("tools_shown").get(0).asText();
        JsonNode calls = new ObjectMapper().readTree(out.get("calls").asText());
        assertThat(calls).isNotEmpty();
        for (JsonNode c : calls) assertThat(c.get("name").asText()).isEqualTo(shown);
    }

    @Test
    void evalWritesTheAgreementReportAndPassesWhenEnginesAgree(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("r");
        CliRun run = CliRun.of("eval", "toolcalls", MiniVariants.mini().toString(), "--cases", miniCases().toString(),
                "--engine", "exact,batch", "--profile", "strict", "--out", out.toString());
        assertThat(run.exit()).as(run.err() + run.out()).isZero();
        assertThat(out.resolve("toolcalls.md")).exists();
        assertThat(out.resolve("toolcalls.html")).exists();
        JsonNode report = new ObjectMapper().readTree(out.resolve("toolcalls.json").toFile());
        assertThat(report.get("schema_version").asInt()).isEqualTo(1);
        JsonNode body = report.get("toolcalls");
        assertThat(body.get("cases").asInt()).isEqualTo(6);
        assertThat(body.get("verdict").asText()).isEqualTo("pass");
        JsonNode agreement = body.get("agreement").get(0);
        assertThat(agreement.get("engine").asText()).isEqualTo("batch");
        assertThat(agreement.get("call_agreement").asDouble()).isEqualTo(1.0);
        for (JsonNode e : body.get("engines")) assertThat(e.get("closed_call_lists").asInt()).isEqualTo(6);
        assertThat(body.get("engines").get(0).get("expected_cases").asInt()).isEqualTo(1);
        // The cases share their tools block: the native engine steps it once, the batch prefill every time.
        JsonNode exact = body.get("engines").get(0), batch = body.get("engines").get(1);
        assertThat(exact.get("prompt_tokens_stepped").asLong()).isLessThan(exact.get("prompt_tokens").asLong() / 2);
        assertThat(batch.get("prompt_tokens_stepped").asLong()).isEqualTo(batch.get("prompt_tokens").asLong());
        assertThat(body.get("threads_per_engine").asInt()).isPositive();
    }

    @Test
    void theExactEngineMakesTheSameCallsAsTheFloat64Reference(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("r");
        CliRun run = CliRun.of("eval", "toolcalls", MiniVariants.mini().toString(), "--cases", miniCases().toString(),
                "--against", MiniVariants.mini().toString(), "--engine", "exact", "--profile", "strict", "--out", out.toString());
        assertThat(run.exit()).as(run.err() + run.out()).isZero();
        JsonNode agreement = new ObjectMapper().readTree(out.resolve("toolcalls.json").toFile()).get("toolcalls").get("agreement").get(0);
        assertThat(agreement.get("baseline").asText()).isEqualTo("reference");
        assertThat(agreement.get("call_agreement").asDouble()).isEqualTo(1.0);
        assertThat(agreement.get("first_divergences")).isEmpty();
    }

    @Test
    void benchWithToolsReportsConstrainedAgainstFree(@TempDir Path dir) throws Exception {
        Path tools = Files.writeString(dir.resolve("tools.json"), "[" + WEATHER + "]");
        Path out = dir.resolve("b");
        CliRun run = CliRun.of("bench", MiniVariants.mini().toString(), "--tools", tools.toString(), "--query", "Weather in Paris",
                "--new-tokens", "64", "--warmup", "0", "--repetitions", "1", "--require-call", "--out", out.toString());
        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode t = new ObjectMapper().readTree(out.resolve("bench.json").toFile()).get("bench").get("tool_calls");
        assertThat(t.get("runs")).hasSize(1);
        assertThat(t.get("runs").get(0).get("calls").asText()).startsWith("[{\"name\":\"get_weather\"");
        assertThat(t.get("mask_ms_per_token_median").asDouble()).isPositive();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"query\":\"q\",\"tools\":[" + WEATHER + "]}\\nnot json|line 2: not valid JSON",
        "{\"query\":\"q\",\"tools\":{\"name\":\"a\"}}|tools must be a JSON array",
        "{\"query\":\"q\",\"tools\":[{\"parameters\":{\"type\":\"object\"}}]}|\"name\" must be a non-empty string",
        "{\"query\":\"q\",\"tools\":[" + WEATHER + "," + WEATHER + "]}|the name is used by an earlier tool",
        "{\"query\":\"q\",\"tools\":[{\"name\":\"a\",\"parameters\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"date\"}}}}]}"
                + "|unsupported type \"date\"",
        "{\"tools\":[]}|\"query\" must be a non-empty string",
    })
    void evalRefusesBadCasesInOneLineWritingNothing(String cases, String message, @TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("cases.jsonl"), cases.replace("\\n", "\n"));
        Path out = dir.resolve("r");
        CliRun run = CliRun.of("eval", "toolcalls", MiniVariants.mini().toString(), "--cases", file.toString(), "--out", out.toString());
        assertThat(run.exit()).as(run.out()).isEqualTo(2);
        assertThat(run.err().strip()).doesNotContain("\n").contains(message);
        assertThat(out).doesNotExist();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "[{\"name\":\"a\",|not valid JSON",
        "[{\"name\":\"a\",\"parameters\":{\"type\":\"object\",\"properties\":{\"x\":{\"oneOf\":[]}}}}]|unsupported schema keyword \"oneOf\"",
        "[{\"name\":\"\",\"parameters\":{}}]|\"name\" must be a non-empty string",
    })
    void generateRefusesBadToolsInOneLine(String tools, String message, @TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("tools.json"), tools);
        CliRun run = CliRun.of("generate", MiniVariants.mini().toString(), "--tools", file.toString(), "--query", "q");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err().strip()).doesNotContain("\n").contains(message);
    }
}
