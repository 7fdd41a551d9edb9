package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needlewb.golden.Golden;
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

    /** The cases the reports module's eval tests run, read from its test resources (one file for both modules). */
    static Path miniCases() {
        return Golden.projectRoot().resolve("reports/src/test/resources/toolcalls/mini-cases.jsonl");
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
    void masterWithoutTheSparkJarSaysInOneLineHowToGetIt(@TempDir Path dir) {
        Path out = dir.resolve("r");
        CliRun run = CliRun.of("eval", "toolcalls", MiniVariants.mini().toString(), "--cases", miniCases().toString(), "--master", "local[2]",
                "--out", out.toString());
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err().strip()).doesNotContain("\n").contains("--master").contains("NEEDLE_WB_SPARK=1 ./needle-wb");
        assertThat(out).doesNotExist();
        CliRun conf = CliRun.of("eval", "toolcalls", MiniVariants.mini().toString(), "--cases", miniCases().toString(), "--conf", "a=b",
                "--out", out.toString());
        assertThat(conf.exit()).isEqualTo(2);
        assertThat(conf.err()).contains("are for a run with --master");
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

    static final String WEATHER_OPENAI = "{\"type\":\"function\",\"function\":" + WEATHER + "}";
    static final String WEATHER_FLATTENED = "{\"name\":\"get_weather\",\"parameters\":{\"city\":{\"type\":\"string\",\"maxLength\":12,\"required\":true},"
            + "\"days\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":7}}}";

    @Test
    void generateGivesTheSamePromptForTheSameToolsInEveryShape(@TempDir Path dir) throws Exception {
        JsonNode first = null;
        for (String[] shape : new String[][] {{WEATHER, "upstream"}, {WEATHER_OPENAI, "openai"}, {WEATHER_FLATTENED, "flattened"},
                {"{\"type\":\"function\"," + WEATHER.substring(1), "openai-flat"}}) {
            Path tools = Files.writeString(dir.resolve(shape[1] + ".json"), "[" + shape[0] + "]");
            CliRun run = CliRun.of("generate", MiniVariants.mini().toString(), "--tools", tools.toString(), "--query", "Weather in Paris",
                    "--mode", "exact", "--max-new", "40", "--json");
            assertThat(run.exit()).as(run.err()).isZero();
            JsonNode out = new ObjectMapper().readTree(run.out());
            assertThat(out.get("tools_shape").asText()).isEqualTo(shape[1]);
            if (first == null) first = out;
            assertThat(out.get("prompt_ids")).as(shape[1]).isEqualTo(first.get("prompt_ids"));
            assertThat(out.get("calls")).as(shape[1]).isEqualTo(first.get("calls"));
        }
    }

    @Test
    void evalScoresUpstreamFineTuningLinesWithToolsInEveryShape(@TempDir Path dir) throws Exception {
        String paris = "{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}";
        String cases = String.join("\n",
                "{\"query\":\"Weather in Paris\",\"tools\":[" + WEATHER + "],\"answers\":[" + paris + "],\"reasoning\":\"Paris -> city\"}",
                "{\"query\":\"Weather in Paris\",\"tools\":[" + WEATHER_OPENAI + "],\"answers\":" + new ObjectMapper().writeValueAsString("[" + paris + "]") + "}",
                "{\"query\":\"Weather in Paris\",\"tools\":" + new ObjectMapper().writeValueAsString("[" + WEATHER_FLATTENED + "]") + ",\"answers\":[]}",
                "{\"id\":\"rome\",\"query\":\"Rain in Rome?\",\"system\":\"be brief\",\"tools\":[" + WEATHER + "],\"expected\":[]}");
        Path file = Files.writeString(dir.resolve("train.jsonl"), cases + "\n");
        Path out = dir.resolve("r");
        CliRun run = CliRun.of("eval", "toolcalls", MiniVariants.mini().toString(), "--cases", file.toString(), "--engine", "exact,batch",
                "--profile", "report", "--max-new", "48", "--out", out.toString());
        assertThat(run.exit()).as(run.err() + run.out()).isZero();
        JsonNode body = new ObjectMapper().readTree(out.resolve("toolcalls.json").toFile()).get("toolcalls");
        assertThat(body.get("tools_shapes").toString()).isEqualTo("{\"upstream\":2,\"openai\":1,\"flattened\":1}");
        assertThat(body.get("expected_from").toString()).isEqualTo("{\"answers\":3,\"expected\":1}");
        assertThat(body.get("score_definitions").fieldNames()).toIterable()
                .containsExactly("expected_call_accuracy", "expected_name_accuracy", "expected_ast_match");
        for (JsonNode e : body.get("engines")) {
            assertThat(e.get("expected_cases").asInt()).isEqualTo(4);
            for (String key : new String[] {"expected_call_accuracy", "expected_name_accuracy", "expected_ast_match"}) {
                assertThat(e.get(key).asDouble()).isBetween(0.0, 1.0);
            }
        }
        JsonNode answers = body.get("case_answers");
        // the same tools in three shapes: one prompt, so one answer
        for (int i = 1; i < 3; i++) {
            assertThat(answers.get(i).get("prompt_tokens")).isEqualTo(answers.get(0).get("prompt_tokens"));
            assertThat(answers.get(i).get("answers").get("exact")).isEqualTo(answers.get(0).get("answers").get("exact"));
        }
        assertThat(answers.get(2).get("tools_shape").asText()).isEqualTo("flattened");
        assertThat(answers.get(3).get("scores").get("batch").fieldNames()).toIterable().containsExactly("exact", "names", "ast");
        String markdown = Files.readString(out.resolve("toolcalls.md"));
        assertThat(markdown).contains("## Scores against the expected calls", "AST match (BFCL)", "google/mobile-actions",
                "Cases by the shape their tools were written in: upstream 2, openai 1, flattened 1");
        // off a terminal: a line per tenth of the 8 answers (4 cases, 2 engines), the last at 100%
        assertThat(run.err().lines().filter(l -> l.startsWith("eval toolcalls: ")).toList()).hasSize(8)
                .last().asString().startsWith("eval toolcalls: 100% (8/8 cases) after ").endsWith(" cases/s");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"query\":\"q\",\"tools\":[" + WEATHER + "]}\\nnot json|line 2: not valid JSON",
        "{\"query\":\"q\",\"tools\":{\"name\":\"a\"}}|tools must be a JSON array",
        "{\"query\":\"q\",\"tools\":[{\"parameters\":{\"type\":\"object\"}}]}|line 1: $.tools[0]: the tool has no \"name\"",
        "{\"query\":\"q\",\"tools\":[" + WEATHER + "," + WEATHER + "]}|line 1: $.tools[1]: the name \"get_weather\" is used by tool 0 too",
        "{\"query\":\"q\",\"tools\":[{\"name\":\"a\",\"parameters\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"date\"}}}}]}"
                + "|line 1: $.tools[0].parameters.properties.x.type (tool \"a\"): unsupported type \"date\"",
        "{\"tools\":[]}|line 1: $.query: must be a non-empty string",
        "{\"query\":\"q\",\"tools\":[{\"api\":\"a\"}]}|line 1: $.tools[0]: not a tool: a tool is",
        "{\"query\":\"q\",\"tools\":[" + WEATHER + "]}\\n{\"query\":\"q\",\"tools\":[" + WEATHER + "],\"answers\":[{\"name\":\"get_time\","
                + "\"arguments\":{}}]}|line 2: $.answers[0].name: \"get_time\" is not one of the case's tools (\"get_weather\")",
        "{\"query\":\"q\",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"a\",\"parameters\":{\"type\":\"object\",\"properties\":"
                + "{\"n\":{\"$ref\":\"#/$defs/N\"}},\"$defs\":{\"N\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/N\"}}}}}}]}"
                + "|line 1: $.tools[0].function.parameters.$defs.N.items.$ref (tool \"a\"): $ref cycle #/$defs/N -> #/$defs/N",
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
        "[{\"name\":\"a\",\"parameters\":{\"type\":\"object\",\"properties\":{\"x\":{\"allOf\":[]}}}}]|line 1: $[0].parameters.properties.x"
                + " (tool \"a\"): unsupported schema keyword \"allOf\"",
        "[{\"name\":\"\",\"parameters\":{}}]|line 1: $[0].name: must be a non-empty string",
        "[{\"name\":\"a\",\"parameters\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
                + "\"minItems\":1000000000}},\"required\":[\"x\"]}}]|--max-new 256 cannot hold a tool call: the shortest answer takes more than 536870909 tokens",
    })
    void generateRefusesBadToolsInOneLine(String tools, String message, @TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("tools.json"), tools);
        CliRun run = CliRun.of("generate", MiniVariants.mini().toString(), "--tools", file.toString(), "--query", "q", "--require-call");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err().strip()).doesNotContain("\n").contains(message);
    }
}
