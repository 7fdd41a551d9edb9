package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needlewb.golden.Golden;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --against: the reference reads other weights than the engines run. */
class ParityAgainstTest {

    private static JsonNode parity(Path dir) throws Exception {
        return new ObjectMapper().readTree(dir.resolve("parity.json").toFile()).get("parity");
    }

    @Test
    void theTrainingCheckpointAgainstItsExportIsJudgedAsQuantizationError(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("r");
        CliRun run = CliRun.of("parity", MiniVariants.mini().toString(), "--against", Golden.mini("mini.ckpt.pkl").toString(),
                "--tokens", MiniVariants.s040(), "--out", out.toString());
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).contains("differs from the model's dequantized weights", "PASS (profile converted)");
        JsonNode p = parity(out);
        assertThat(p.at("/reference_weights/identical_to_model").asBoolean()).isFalse();
        // 2-bit CQ of random weights: measured largest per-parameter relative difference 0.36.
        assertThat(p.at("/reference_weights/largest_difference_rel_l2").asDouble()).isBetween(0.1, 1.0);
        assertThat(p.at("/comparisons/0/profile").asText()).isEqualTo("converted");
        assertThat(p.at("/comparisons/0/reference").asText()).endsWith("on " + Golden.mini("mini.ckpt.pkl"));
        // Quantization error dominates: the logits differ far beyond float32 noise (measured rel L2 0.54).
        JsonNode taps = p.at("/comparisons/0/taps");
        assertThat(taps.get(taps.size() - 1).path("rel_l2").asDouble()).isGreaterThan(0.1);
        // The same engines against the reference on MODEL's own weights: the engines' own error,
        // judged by the default profiles, so the difference above is the quantization's.
        assertThat(p.path("comparisons").size()).isEqualTo(4);
        assertThat(p.at("/comparisons/2/engine").asText()).isEqualTo("exact");
        assertThat(p.at("/comparisons/2/profile").asText()).isEqualTo("strict");
        assertThat(p.at("/comparisons/2/reference").asText()).doesNotContain(" on ");
        assertThat(p.at("/comparisons/3/profile").asText()).isEqualTo("int8");
        JsonNode own = p.at("/comparisons/2/taps");
        // float32 against float64 on the same weights: measured 3.9e-7, strict's limit 2e-6.
        assertThat(own.get(own.size() - 1).path("rel_l2").asDouble()).isLessThan(2e-6);
        assertThat(p.path("engine_pairs").size()).isEqualTo(1);
    }

    @Test
    void theSameWeightsAsAStateDictAreHeldToTheStrictProfile(@TempDir Path dir) throws Exception {
        Path pt = dir.resolve("mini.pt");
        CliRun convert = CliRun.of("convert", MiniVariants.mini().toString(), "--to", pt.toString());
        assertThat(convert.exit()).as(convert.err()).isZero();
        Path out = dir.resolve("r");
        // No --like: the state dict takes MODEL's geometry and names.
        CliRun run = CliRun.of("parity", MiniVariants.mini().toString(), "--against", pt.toString(), "--engine", "exact",
                "--tokens", MiniVariants.s040(), "--out", out.toString());
        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode p = parity(out);
        assertThat(p.at("/reference_weights/identical_to_model").asBoolean()).isTrue();
        assertThat(p.at("/comparisons/0/profile").asText()).isEqualTo("strict");
        assertThat(p.at("/comparisons/0/reference").asText()).endsWith("on " + pt);
        assertThat(p.at("/comparisons/0/passed").asBoolean()).isTrue();
        // Identical weights need no second reference run on MODEL's own.
        assertThat(p.path("comparisons").size()).isEqualTo(1);
    }

    @Test
    void aModelOfAnotherArchitectureIsRefusedBeforeAnyWork(@TempDir Path dir) throws Exception {
        Path other = MiniVariants.withGeometry(dir.resolve("theta.cact"), g -> MiniVariants.ropeTheta(g, 10000f));
        Path out = dir.resolve("r");
        CliRun run = CliRun.of("parity", MiniVariants.mini().toString(), "--against", other.toString(),
                "--tokens", MiniVariants.s040(), "--out", out.toString());
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err().strip()).doesNotContain("\n")
                .contains("theta.cact: geometry differs from", "(rope_theta 100000.0 vs 10000.0)");
        assertThat(out).doesNotExist();
    }
}
