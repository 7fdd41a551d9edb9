package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The profiles catch real faults: the engines run a copy of the mini model with one tensor
 * damaged while the reference reads the intact file (--against), and parity must fail at the
 * first tap the damage reaches, in execution order.
 */
class ParityFaultTest {

    private static JsonNode parity(Path dir) throws Exception {
        return new ObjectMapper().readTree(dir.resolve("parity.json").toFile()).get("parity");
    }

    @Test
    void aThousandthOnOneQNormGainFailsStrictAtThatLayersQueries(@TempDir Path dir) throws Exception {
        // layer03.q_norm is a zero-centred gain (scale 1 + g): g[0] + 0.001 scales one of 32 channels
        // by 0.1%, so attn.q of layer 3 moves by about 1e-3 / sqrt(32) = 2e-4 relative, 90x the strict
        // limit, while every tap before it (layers 0-2, layer 3's lanes, u, engram gate) is untouched.
        Path damaged = MiniVariants.withTensor(dir.resolve("q-norm.cact"), "layer03.q_norm", bytes -> {
            short half = (short) ((bytes[0] & 0xff) | (bytes[1] & 0xff) << 8);
            half = Float.floatToFloat16(Float.float16ToFloat(half) + 0.001f);
            bytes[0] = (byte) half;
            bytes[1] = (byte) (half >> 8);
            return bytes;
        });
        Path out = dir.resolve("r");
        CliRun run = CliRun.of("parity", damaged.toString(), "--against", MiniVariants.mini().toString(), "--engine", "exact",
                "--profile", "strict", "--tokens", MiniVariants.s040(), "--out", out.toString());
        assertThat(run.exit()).as(run.err()).isEqualTo(1);
        assertThat(run.out()).contains("first out of tolerance: layer03.attn.q (q projection, q norm and RoPE)");
        JsonNode p = parity(out);
        assertThat(p.at("/first_failure/tap").asText()).isEqualTo("layer03.attn.q");
        assertThat(p.at("/first_failure/reference").asText()).endsWith("on " + MiniVariants.mini());
        // Against its own (damaged) weights the engine is right: the fault is in the file, not the engine.
        assertThat(p.at("/comparisons/1/reference").asText()).doesNotContain(" on ");
        assertThat(p.at("/comparisons/1/passed").asBoolean()).isTrue();
        assertThat(p.at("/reference_weights/identical_to_model").asBoolean()).isFalse();
        // Flax stacks the layers: the one changed value shows in the stacked q_norm parameter.
        assertThat(p.at("/reference_weights/largest_difference_parameter").asText()).endsWith("q_norm/scale");
    }

    @Test
    void negatedValueProjectionFailsInt8AndConvertedAtThatLayersValues(@TempDir Path dir) throws Exception {
        // Every 2-bit code c of layer03.v_proj becomes 3 - c: the codebook is symmetric to 0.2%, so
        // the weights are negated and attn.v has cosine about -1 with the reference.
        Path damaged = MiniVariants.withTensor(dir.resolve("v-proj.cact"), "layer03.v_proj", bytes -> {
            int codeBytes = 64 * 128 * 2 / 8;
            for (int i = 0; i < codeBytes; i++) bytes[i] ^= (byte) 0xff;
            return bytes;
        });
        Path int8 = dir.resolve("int8");
        CliRun run = CliRun.of("parity", damaged.toString(), "--against", MiniVariants.mini().toString(), "--engine", "int8",
                "--profile", "int8", "--tokens", MiniVariants.s040(), "--out", int8.toString());
        assertThat(run.exit()).as(run.err()).isEqualTo(1);
        assertThat(parity(int8).at("/first_failure/tap").asText()).isEqualTo("layer03.attn.v");

        // Without --profile the differing weights select the loose 'converted' profile; it still
        // rejects a sign flip.
        Path converted = dir.resolve("converted");
        CliRun loose = CliRun.of("parity", damaged.toString(), "--against", MiniVariants.mini().toString(), "--engine", "exact",
                "--tokens", MiniVariants.s040(), "--out", converted.toString());
        assertThat(loose.exit()).as(loose.err()).isEqualTo(1);
        assertThat(loose.out()).contains("(profile converted); first out of tolerance: layer03.attn.v");
        assertThat(parity(converted).at("/first_failure/violations/0").asText()).startsWith("rel_l2 ");
    }
}
