package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needlewb.converter.cact.CactWriter;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.converter.synth.SyntheticCact;
import dev.needlewb.converter.synth.SyntheticTokenizerBlob;
import dev.needlewb.golden.Golden;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
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

    /** Upstream's Stack adds both injections of two sites at one layer: a valid file the workbench's forwards cannot run. */
    @Test
    void repeatedEngramSitesAreANoteForInspectAndAOneLineRefusalForTheForwards(@TempDir Path dir) throws Exception {
        Geometry m = Geometry.mini();
        Geometry repeated = new Geometry(m.vocab(), m.dModel(), m.numHeads(), m.numKvHeads(), m.numLayers(), m.headDim(), m.maxSeqLen(),
                m.hadaN(), m.mhcLanes(), m.engramSlots(), m.engramSubDim(), m.numEngramTables(), m.engramConvTaps(),
                m.engramConvDilation(), m.engramOrders(), new int[] {1, 1}, m.ropeTheta(), m.kvWindow(), m.kvBits());
        Path file = dir.resolve("repeated.cact");
        CactWriter.write(SyntheticCact.build(repeated, 3, List.of(), SyntheticTokenizerBlob.of(m.vocab(), 6000)), file);
        CliRun inspect = CliRun.of("inspect", file.toString());
        assertThat(inspect.exit()).as(inspect.err()).isZero();
        assertThat(inspect.out()).contains("engram sites [1, 1] repeat layer 1: upstream's Stack adds every site's injection");
        CliRun parity = CliRun.of("parity", file.toString(), "--tokens", "2,5,6", "--out", dir.resolve("p").toString());
        assertThat(parity.exit()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(parity.err().strip()).doesNotContain("\n").contains("engram site 1 repeats layer 1: the reference injects one site per layer");
        CliRun generate = CliRun.of("generate", file.toString(), "--prompt", "hi");
        assertThat(generate.exit()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(generate.err().strip()).doesNotContain("\n").contains("repeated.cact: at byte 104: engram site 1 repeats layer 1");
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
