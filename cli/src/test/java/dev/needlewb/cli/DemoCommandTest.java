package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's main command, end to end on the released geometry. */
class DemoCommandTest {
    @Test
    void demoRunsEndToEndAndReportsThePublishedCounts(@TempDir Path dir) throws Exception {
        CliRun run = CliRun.of("demo", "--out", dir.toString());
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).contains("405 tensors, 43,634,423 parameters, 13,737,807 bytes, 2.255206 bit weighted code width");
        assertThat(run.out()).contains("read then write unchanged: byte-identical");
        assertThat(run.out()).contains(".cact -> PyTorch .pt -> .cact with --base: byte-identical");
        JsonNode inspect = new ObjectMapper().readTree(dir.resolve("inspect.json").toFile()).get("inspect");
        assertThat(inspect.at("/categories/CQ2/bytes").asLong()).isEqualTo(10_027_008L);
        assertThat(dir.resolve("idempotence/idempotence.html")).exists();
        assertThat(dir.resolve("bench/bench.json")).exists();
        assertThat(dir.resolve("demo.json")).exists();
        // Parity on the released geometry must pass the built-in profiles (calibrated on it).
        assertThat(run.out()).contains("parity     reference vs engine exact and int8").doesNotContain("PARITY FAILED");
        JsonNode parity = new ObjectMapper().readTree(dir.resolve("parity/parity.json").toFile()).get("parity");
        assertThat(parity.path("passed").asBoolean()).isTrue();
        assertThat(parity.at("/comparisons/0/profile").asText()).isEqualTo("strict");
        assertThat(parity.at("/comparisons/1/profile").asText()).isEqualTo("int8");
        assertThat(parity.at("/engine_pairs/0/baseline_engine").asText()).isEqualTo("exact");
        assertThat(run.out()).contains(dir.resolve("parity/parity.html").toString());
        // random weights, but the constrained answers are closed, valid call lists on every engine
        JsonNode toolcalls = new ObjectMapper().readTree(dir.resolve("toolcalls/toolcalls.json").toFile()).get("toolcalls");
        for (JsonNode e : toolcalls.get("engines")) assertThat(e.get("closed_call_lists").asInt()).isEqualTo(2);
        // Needle 3: exported with the shipped scheme, round-tripped byte for byte, the reference in both modes
        assertThat(run.out()).contains("v3 export", "bits embedding=4,mhc=4,default=2", "tag 0x05E12A84")
                .contains(".cact -> .safetensors -> .cact with --base: byte-identical");
        try (var f = dev.needlewb.converter.cact.CactFile.open(dir.resolve("needle3-synthetic.cact"))) {
            assertThat(f.generation().generation()).isEqualTo(dev.needlewb.core.generation.Generation.NEEDLE3);
            assertThat(f.tensor("embedding").bits()).isEqualTo(4);
            assertThat(f.tensor("layer01.q_proj").bits()).isEqualTo(2);
        }
        for (String q : new String[] {"q0", "q1"}) {
            var logits = dev.needlewb.golden.Golden.npz(dir.resolve("needle3-synthetic.reference." + q + ".npz")).get("logits");
            assertThat(logits.shape()[1]).as(q).isEqualTo(512);
            for (double v : logits.asDoubles()) assertThat(Double.isFinite(v)).isTrue();
        }
        // and the engine: parity against the reference within the Needle 3 profiles, valid constrained calls
        assertThat(run.out()).contains("v3 parity  reference vs engine exact and int8");
        JsonNode parity3 = new ObjectMapper().readTree(dir.resolve("needle3-parity/parity.json").toFile()).get("parity");
        assertThat(parity3.path("passed").asBoolean()).isTrue();
        assertThat(parity3.at("/comparisons/1/profile").asText()).isEqualTo("int8-v3");
        JsonNode toolcalls3 = new ObjectMapper().readTree(dir.resolve("needle3-toolcalls/toolcalls.json").toFile()).get("toolcalls");
        for (JsonNode e : toolcalls3.get("engines")) assertThat(e.get("closed_call_lists").asInt()).isEqualTo(2);
    }
}
