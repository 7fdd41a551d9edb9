package dev.needlewb.reports.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needlewb.golden.Golden;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InspectAndTokenizeCliTest {
    @Test
    void inspectJsonMatchesTheGoldenHeaderAndCategories() throws Exception {
        Path cact = Golden.mini("mini.cact");
        CliRun run = CliRun.of("inspect", cact.toString(), "--json");
        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode body = new ObjectMapper().readTree(run.out()).get("inspect");
        JsonNode golden = Golden.json(Golden.mini("cact_header.json"));
        assertThat(body.get("sha256").asText()).isEqualTo(golden.get("file_sha256").asText());
        assertThat(body.get("file_bytes").asLong()).isEqualTo(golden.get("file_bytes").asLong());
        assertThat(body.get("tensors")).hasSize(golden.get("tensors").size());
        for (String cat : new String[] {"CQ2", "CQ4", "FP16", "RAW"}) {
            assertThat(body.at("/categories/" + cat + "/tensors").asInt()).isEqualTo(golden.at("/categories/" + cat + "/tensors").asInt());
            assertThat(body.at("/categories/" + cat + "/bytes").asLong()).isEqualTo(golden.at("/categories/" + cat + "/bytes").asLong());
        }
        assertThat(body.at("/geometry/engram_layers").toString()).isEqualTo("[1,4]");
    }

    @Test
    void inspectWritesReportFilesWhenAsked(@TempDir Path dir) {
        CliRun run = CliRun.of("inspect", Golden.mini("mini.cact").toString(), "--out", dir.toString());
        assertThat(run.exit()).isZero();
        assertThat(run.out()).contains("| CQ2 | 36 | 524,288 | 156,672 |");
        assertThat(dir.resolve("inspect.json")).exists();
        assertThat(dir.resolve("inspect.md")).exists();
    }

    @Test
    void badFileIsOneLineAndExitTwo(@TempDir Path dir) throws Exception {
        Path truncated = dir.resolve("cut.cact");
        Files.write(truncated, Arrays.copyOf(Files.readAllBytes(Golden.mini("mini.cact")), 3000));
        CliRun run = CliRun.of("inspect", truncated.toString());
        assertThat(run.exit()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(run.err().strip()).doesNotContain("\n").startsWith("needle-wb: " + truncated).contains("at byte");
        assertThat(CliRun.of("inspect", dir.resolve("missing.cact").toString()).err()).contains("missing.cact: cannot read: no such file");
    }

    @Test
    void tokenizeEncodesTheGoldenPromptAndRefusesUnknownIds() {
        String cact = Golden.mini("mini.cact").toString();
        JsonNode prompt = Golden.json(Golden.mini("decode.json")).at("/generate_cached/raw.kv0/prompt_ids");
        StringBuilder expected = new StringBuilder();
        for (int i = 1; i < prompt.size(); i++) expected.append(i > 1 ? "," : "").append(prompt.get(i).asInt());
        CliRun run = CliRun.of("tokenize", cact, "--text", "What is the weather in Paris?");
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out().strip()).isEqualTo(expected.toString());

        CliRun decoded = CliRun.of("tokenize", cact, "--ids", expected.toString());
        assertThat(decoded.out().strip()).isEqualTo("What is the weather in Paris?");

        CliRun bad = CliRun.of("tokenize", cact, "--ids", "2,4000");
        assertThat(bad.exit()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(bad.err()).contains("token id 4000 is outside the vocabulary");
    }
}
