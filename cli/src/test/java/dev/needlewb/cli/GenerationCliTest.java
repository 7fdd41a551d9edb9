package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.golden.Golden;
import dev.needlewb.reports.report.Report;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Upstream's own Needle 3 file (v3mini/mini3.cact) through the command line: the commands that
 * read a file (inspect, names, tokenize, convert to and from state dicts) take it; the engine runs
 * it; the reference takes the Needle 3 checkpoint and the .cact.
 */
class GenerationCliTest {
    @Test
    void theEngineRunsANeedle3File(@TempDir Path dir) throws Exception {
        Path v3 = Golden.v3mini("mini3.cact");
        CliRun generate = CliRun.of("generate", v3.toString(), "--prompt", "hi", "--max-new", "4", "--mode", "exact", "--json");
        assertThat(generate.exit()).as(generate.err()).isZero();
        assertThat(Report.JSON.readTree(generate.out()).path("generated_ids").size()).isEqualTo(4);
        Path out = dir.resolve("bench");
        CliRun bench = CliRun.of("bench", v3.toString(), "--new-tokens", "2", "--warmup", "0", "--repetitions", "1", "--out", out.toString());
        assertThat(bench.exit()).as(bench.err()).isZero();
        assertThat(out.resolve("bench.json")).exists();
        CliRun batch = CliRun.of("generate", v3.toString(), "--prompt", "hi", "--max-new", "4", "--mode", "exact", "--prefill", "batch", "--json");
        assertThat(batch.exit()).as(batch.err()).isZero();
        assertThat(Report.JSON.readTree(batch.out()).path("generated_ids")).isEqualTo(Report.JSON.readTree(generate.out()).path("generated_ids"));
        // the torch engine runs Needle 3 too (module torch, V3TorchForwardTest); this jar does not carry it
        CliRun torch = CliRun.of("generate", v3.toString(), "--prompt", "hi", "--max-new", "2", "--prefill", "torch");
        assertThat(torch.exit()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(torch.err().strip()).doesNotContain("\n").contains("the torch engine is not in this jar");
    }

    /**
     * Parity on the golden file (s040: 40 positions past its 16-position window): exact under the strict profile,
     * int8 against upstream's deploy quant=True under int8-v3, every Needle 3 tap the engine shares with the
     * reference judged (the QKV conv outputs, the MLP's input and output); a KV window on top of the model's mask
     * is refused in one line.
     */
    @Test
    void parityHoldsBothEnginesToTheNeedle3ReferenceTapByTap(@TempDir Path dir) throws Exception {
        Path v3 = Golden.v3mini("mini3.cact");
        Path out = dir.resolve("parity");
        CliRun run = CliRun.of("parity", v3.toString(), "--tokens", tokens("s040"), "--engine", "exact,int8", "--out", out.toString());
        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode comparisons = Report.JSON.readTree(out.resolve("parity.json").toFile()).path("parity").path("comparisons");
        assertThat(comparisons.get(0).path("profile").asText()).isEqualTo("strict");
        assertThat(comparisons.get(1).path("profile").asText()).isEqualTo("int8-v3");
        List<String> taps = new java.util.ArrayList<>();
        comparisons.get(0).path("taps").forEach(t -> taps.add(t.path("name").asText()));
        assertThat(taps).contains("layer00.attn.q_conv", "layer00.attn.v_conv", "layer03.mlp.in", "layer03.mlp.out", "layer02.attn.out", "logits");
        for (JsonNode c : comparisons) assertThat(c.path("passed").asBoolean()).as(c.path("engine").asText()).isTrue();

        CliRun windowed = CliRun.of("parity", v3.toString(), "--tokens", "2,5,6", "--window", "8", "--sinks", "1", "--out", dir.resolve("w").toString());
        assertThat(windowed.exit()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(windowed.err().strip()).doesNotContain("\n").contains("--window and --sinks are Needle 2 options");
        assertThat(dir.resolve("w")).doesNotExist();
    }

    /** A tool call on the Needle 3 file: constrained to the tools' grammar, no tool prefix pinned on top of the model's mask. */
    @Test
    void generateWithToolsRunsConstrainedOnNeedle3(@TempDir Path dir) throws Exception {
        Path tools = dir.resolve("tools.json");
        Files.writeString(tools, "[{\"name\": \"get_weather\", \"description\": \"Get the weather\", \"parameters\": {\"type\": \"object\","
                + " \"properties\": {\"city\": {\"type\": \"string\"}}, \"required\": [\"city\"]}}]");
        CliRun run = CliRun.of("generate", Golden.v3mini("mini3.cact").toString(), "--tools", tools.toString(), "--query", "weather in Paris",
                "--max-new", "40", "--json");
        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode body = Report.JSON.readTree(run.out());
        assertThat(body.path("constrained").asBoolean()).isTrue();
        assertThat(body.path("sinks").asInt()).isZero();
        assertThat(body.path("text").asText()).startsWith("<tool_call>");
    }

    private static String tokens(String seq) {
        StringBuilder out = new StringBuilder();
        for (var t : Golden.json(Golden.v3mini("sequences.json")).get(seq).get("tokens")) out.append(out.isEmpty() ? "" : ",").append(t.asInt());
        return out.toString();
    }

    /** The .cact alone reaches the float64 reference: upstream's deq logits (V3StoredModelTest's 1e-9). */
    @Test
    void theReferenceRunsANeedle3Cact(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("ref.npz");
        var seq = Golden.json(Golden.v3mini("sequences.json")).get("s007").get("tokens");
        StringBuilder tokens = new StringBuilder();
        for (var t : seq) tokens.append(tokens.isEmpty() ? "" : ",").append(t.asInt());
        CliRun run = CliRun.of("reference", Golden.v3mini("mini3.cact").toString(), "--tokens", tokens.toString(), "--out", out.toString());
        assertThat(run.exit()).as(run.err()).isZero();
        double[] got = Golden.array(out, "logits").asDoubles();
        double[] want = Golden.array(Golden.v3mini("forward.npz"), "logits.s007.deq.q0").asDoubles();
        double scale = 0, err = 0;
        for (int i = 0; i < want.length; i++) {
            scale = Math.max(scale, Math.abs(want[i]));
            err = Math.max(err, Math.abs(got[i] - want[i]));
        }
        assertThat(err / scale).isLessThan(1e-9);
    }

    @Test
    void inspectShowsTheGenerationTheHeaderFieldsByNameAndTheFp32Category(@TempDir Path dir) throws Exception {
        Path v3 = Golden.v3mini("mini3.cact");
        CliRun md = CliRun.of("inspect", v3.toString());
        assertThat(md.exit()).as(md.err()).isZero();
        assertThat(md.out()).contains("- generation: Needle 3 (tag 0x05E12A84)", "- qk_head_dim: 32", "- v_head_dim: 48",
                "- global_layers: [2]", "- attention_window: 16 (global layers [2])", "| FP32 | 2 | 256 | 1,024 |");
        CliRun json = CliRun.of("inspect", v3.toString(), "--json");
        JsonNode body = Report.JSON.readTree(json.out()).path("inspect");
        assertThat(body.path("generation").asText()).isEqualTo("Needle 3");
        assertThat(body.path("geometry").path("sliding_window").asInt()).isEqualTo(16);
        assertThat(body.path("categories").path("FP32").path("parameters").asInt()).isEqualTo(256);
    }

    @Test
    void namesPrintTheNeedle3TableWithItsExportersWidths() {
        CliRun run = CliRun.of("names", "--geometry", "needle3", "--compact");
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.out()).contains("| layerNN.q_taps | stack/layers/block/self_attn/q_taps[N] | layers.N.attn.q_taps | [3, 576] | [20, 3, 576] | LAYER_SLICE | fp16 |",
                "| layerNN.cond_v | stack/layers/block/hadamard_mlp/cond_v[N] | layers.N.mlp.cond_v | [768, 8] | [20, 768, 8] | LAYER_SLICE | fp16 |",
                "| hada_p1 | - | hada.p1 | [1024] | - | DERIVED | fp32 |",
                "| layerNN.q_proj | stack/layers/block/self_attn/q_proj/kernel[N] | layers.N.attn.q_proj.weight | [576, 768] | [20, 768, 576] | LAYER_SLICE_TRANSPOSE | cq4/128 |");
        CliRun shipped = CliRun.of("names", "--geometry", Golden.v3mini("mini3.cact").toString(), "--bits-map", "embedding=4,mhc=4,default=2");
        // the probe heads' matrices stay at upstream's HEAD_BITS whatever the map
        assertThat(shipped.out()).contains("| layer03.v_proj |", "cq2/128 |").contains("| confidence_head.proj | confidence_head/proj/kernel | confidence_head.proj.weight | [1, 512] | [512, 1] | TRANSPOSE | cq4/128 |");
    }

    @Test
    void upstreamsNeedle3CheckpointConvertsToUpstreamsFileAndABadOneWritesNothing(@TempDir Path dir) throws Exception {
        Path ckpt = Golden.v3mini("mini3.ckpt.pkl");
        Path out = dir.resolve("mini3.cact");
        CliRun run = CliRun.of("convert", ckpt.toString(), "--tokenizer", Golden.v3mini("tok512.model").toString(), "--to", out.toString());
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(Golden.v3mini("mini3.cact")));
        CliRun names = CliRun.of("names", "--geometry", ckpt.toString(), "--compact");
        assertThat(names.exit()).as(names.err()).isZero();
        assertThat(names.out()).contains("| confidence_head.probes | confidence_head/probes | confidence_head.probes | [20, 128] | [5, 4, 128] | PROBES_RESHAPE | cq4/128 |");
        // a LoRA adapter whose factors disagree with its rank (A of rank 2, rank 3 declared): one line naming the adapter, nothing written
        Path refused = dir.resolve("refused.cact");
        Path adapter = dir.resolve("needle_lora.safetensors");
        try (var stream = Files.newOutputStream(adapter)) {
            dev.needlewb.converter.safetensors.Safetensors.write(stream, java.util.Map.of(
                    "lora/stack/layers/block/self_attn/q_proj/kernel/A", dev.needlewb.core.io.NpyArray.ofFloats(new int[] {4, 128, 2}, new float[4 * 128 * 2]),
                    "lora/stack/layers/block/self_attn/q_proj/kernel/B", dev.needlewb.core.io.NpyArray.ofFloats(new int[] {4, 2, 128}, new float[4 * 2 * 128])),
                    java.util.Map.of("scale", "2.0", "rank", "3", "base", "null", "seed", "0"));
        }
        CliRun lora = CliRun.of("convert", ckpt.toString(), "--lora", adapter.toString(), "--tokenizer", Golden.v3mini("tok512.model").toString(),
                "--to", refused.toString());
        assertThat(lora.exit()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(lora.err().strip()).doesNotContain("\n").startsWith("needle-wb: " + adapter + ": ")
                .endsWith("adapter stack/layers/block/self_attn/q_proj/kernel has A [4, 128, 2] and B [4, 2, 128]; expected lead+(in, 3) and lead+(3, out)");
        assertThat(refused).doesNotExist();
        assertThat(dir.resolve("refused.cact.manifest.json")).doesNotExist();
    }

    @Test
    void aNeedle3FileRoundTripsThroughStateDictsByteForByte(@TempDir Path dir) throws Exception {
        Path v3 = Golden.v3mini("mini3.cact");
        for (String ext : List.of("safetensors", "pt")) {
            Path dict = dir.resolve("mini3." + ext);
            Path back = dir.resolve("back-" + ext + ".cact");
            CliRun to = CliRun.of("convert", v3.toString(), "--to", dict.toString());
            assertThat(to.exit()).as(to.err()).isZero();
            CliRun from = CliRun.of("convert", dict.toString(), "--base", v3.toString(), "--to", back.toString());
            assertThat(from.exit()).as(from.err()).isZero();
            assertThat(Files.readAllBytes(back)).isEqualTo(Files.readAllBytes(v3));
        }
    }
}
