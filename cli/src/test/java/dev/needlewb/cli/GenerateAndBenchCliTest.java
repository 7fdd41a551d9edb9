package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needlewb.core.simd.VectorWidth;
import dev.needlewb.golden.Golden;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GenerateAndBenchCliTest {
    static final ObjectMapper JSON = new ObjectMapper();

    static String mini() {
        return Golden.mini("mini.cact").toString();
    }

    @Test
    void exactGreedyGenerationMatchesUpstream() throws Exception {
        JsonNode want = Golden.json(Golden.mini("decode.json")).get("generate_cached").get("deq.kv0");
        // The mini header's kv_window (256) equals its max_seq_len, so the header window is no window.
        CliRun run = CliRun.of("generate", mini(), "--prompt", "What is the weather in Paris?", "--max-new", "24",
                "--mode", "exact", "--threads", "1", "--json");
        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode got = JSON.readTree(run.out());
        assertThat(got.get("prompt_ids")).isEqualTo(want.get("prompt_ids"));
        assertThat(got.get("generated_ids")).isEqualTo(want.get("generated_ids"));
        assertThat(got.get("text").asText()).isEqualTo(want.get("text").asText());
    }

    @Test
    void batchPrefillGeneratesTheSameIdsAndTheBenchSaysWhichPrefillRan(@TempDir Path dir) throws Exception {
        JsonNode want = Golden.json(Golden.mini("decode.json")).get("generate_cached").get("deq.kv0");
        CliRun run = CliRun.of("generate", mini(), "--prompt", "What is the weather in Paris?", "--max-new", "24",
                "--mode", "exact", "--threads", "1", "--prefill", "batch", "--json");
        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode got = JSON.readTree(run.out());
        assertThat(got.get("generated_ids")).isEqualTo(want.get("generated_ids"));
        assertThat(got.get("prefill").asText()).isEqualTo("batch");
        CliRun bench = CliRun.of("bench", mini(), "--new-tokens", "2", "--warmup", "0", "--repetitions", "1",
                "--prefill", "batch", "--out", dir.toString());
        assertThat(bench.exit()).as(bench.err()).isZero();
        JsonNode report = JSON.readTree(dir.resolve("bench.json").toFile()).get("bench");
        assertThat(report.get("prefill").asText()).isEqualTo("batch");
        assertThat(report.get("batch_prefill_setup_ms").asDouble()).isPositive();
        assertThat(Files.readString(dir.resolve("bench.md"))).contains("Prefill: batch");
        assertOneLineError(CliRun.of("generate", mini(), "--prompt", "x", "--prefill", "gpu"), "unknown prefill");
    }

    @Test
    void streamingPrintsTheSameTextAsJson() throws Exception {
        String[] common = {"generate", mini(), "--prompt", "Hello", "--max-new", "12", "--temperature", "0.8", "--top-p", "0.95", "--seed", "5"};
        CliRun streamed = CliRun.of(common);
        CliRun json = CliRun.of(concat(common, "--json"));
        assertThat(streamed.exit()).as(streamed.err()).isZero();
        assertThat(streamed.out()).isEqualTo(JSON.readTree(json.out()).get("text").asText() + System.lineSeparator());
    }

    @Test
    void toolPromptPinsTheToolPrefixAsSinks(@TempDir Path dir) throws Exception {
        Path tools = dir.resolve("tools.json");
        Files.writeString(tools, "[{\"name\":\"get_weather\",\"description\":\"Weather now\",\"parameters\":{\"type\":\"object\","
                + "\"properties\":{\"city\":{\"type\":\"string\"}}}}]");
        CliRun run = CliRun.of("generate", mini(), "--tools", tools.toString(), "--query", "Weather in Paris?", "--max-new", "4", "--json");
        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode got = JSON.readTree(run.out());
        assertThat(got.get("sinks").asInt()).isPositive().isLessThan(got.get("prompt_ids").size());
        assertThat(got.get("generated_ids").size()).isLessThanOrEqualTo(4);
    }

    @Test
    void windowAndSinksOverrideTheHeaderWindow() throws Exception {
        // Sampled rather than greedy: mini's greedy continuation repeats one token whatever the window.
        String[] common = {"generate", mini(), "--prompt", "What is the weather in Paris?", "--max-new", "16", "--mode", "exact",
            "--threads", "1", "--temperature", "1.5", "--seed", "3", "--json"};
        JsonNode header = JSON.readTree(CliRun.of(common).out());
        JsonNode none = JSON.readTree(CliRun.of(concat(concat(common, "--window"), "0")).out());
        CliRun smallRun = CliRun.of(concat(concat(concat(concat(common, "--window"), "4"), "--sinks"), "2"));
        assertThat(smallRun.exit()).as(smallRun.err()).isZero();
        JsonNode small = JSON.readTree(smallRun.out());
        // mini's header window (256) equals its max_seq_len: it never binds, so the engine runs none.
        assertThat(header.get("window").asInt()).isZero();
        assertThat(header.get("window_text").asText()).isEqualTo("none (kv_window 256 >= max_seq_len 256)");
        assertThat(none.get("window").asInt()).isZero();
        assertThat(none.get("window_text").asText()).isEqualTo("none (set for this run)");
        assertThat(small.get("window_text").asText()).isEqualTo("4 (set for this run)");
        assertThat(none.get("generated_ids")).isEqualTo(header.get("generated_ids"));
        assertThat(small.get("window").asInt()).isEqualTo(4);
        assertThat(small.get("sinks").asInt()).isEqualTo(2);
        // Two sinks and four recent keys instead of the whole prompt: the sampled continuation changes.
        assertThat(small.get("generated_ids")).isNotEqualTo(header.get("generated_ids"));
        assertOneLineError(CliRun.of("generate", mini(), "--prompt", "x", "--window", "-1"), "--window must be >= 0");
        assertOneLineError(CliRun.of("generate", mini(), "--prompt", "x", "--sinks", "-2"), "--sinks must be >= 0");
        assertOneLineError(CliRun.of("generate", mini(), "--prompt", "x", "--sinks", "9"), "pins more positions than the prompt");
    }

    @Test
    void badInputIsAOneLineUserError(@TempDir Path dir) throws Exception {
        Path malformed = dir.resolve("bad.json");
        Files.writeString(malformed, "[{\"name\": \"f\",");
        assertOneLineError(CliRun.of("generate", mini(), "--tools", dir.resolve("missing.json").toString(), "--query", "q"), "missing.json");
        assertOneLineError(CliRun.of("generate", mini(), "--tools", malformed.toString(), "--query", "q"), "not valid JSON");
        assertOneLineError(CliRun.of("generate", mini(), "--prompt", "word ".repeat(400)), "at most 256 positions");
        assertOneLineError(CliRun.of("generate", mini(), "--prompt", "x", "--top-p", "0"), "top-p");
        assertOneLineError(CliRun.of("generate", mini(), "--prompt", "x", "--mode", "fp64"), "unknown mode");
        String otherWidth = VectorWidth.BITS == 128 ? "256" : "128";
        assertOneLineError(CliRun.of("bench", mini(), "--vector-bits", otherWidth), "already runs its kernels at " + VectorWidth.BITS);
    }

    @Test
    void benchWritesAConsistentReport(@TempDir Path dir) throws Exception {
        CliRun run = CliRun.of("bench", mini(), "--new-tokens", "4", "--warmup", "1", "--repetitions", "2",
                "--prompt-tokens", "10", "--out", dir.toString());
        assertThat(run.exit()).as(run.err()).isZero();
        JsonNode root = JSON.readTree(dir.resolve("bench.json").toFile());
        assertThat(root.get("schema_version").asInt()).isEqualTo(1);
        assertThat(root.at("/environment/cpu_model").asText()).isNotEmpty();
        assertThat(root.at("/environment/available_processors").asInt()).isPositive();
        assertThat(root.at("/environment/vectors/bits").asInt()).isEqualTo(VectorWidth.BITS);
        assertThat(root.at("/environment/vectors/float_species").asText()).isEqualTo(VectorWidth.FLOATS.toString());
        assertThat(root.at("/environment/vectors/engine_vectors_per_logical").asInt()).isEqualTo(16 / VectorWidth.FLOAT_LANES);
        assertThat(root.at("/environment/vectors/registers").asInt()).isEqualTo(VectorWidth.registers());
        assertThat(root.at("/inputs/0/sha256").asText())
                .isEqualTo(Golden.json(Golden.mini("cact_header.json")).get("file_sha256").asText());
        JsonNode bench = root.get("bench");
        assertThat(bench.get("threads").asInt()).isEqualTo(2);
        assertThat(bench.get("prefill").asText()).isEqualTo("native");
        assertThat(bench.get("warmup").asInt()).isEqualTo(1);
        assertThat(bench.get("prompt_tokens").asInt()).isEqualTo(10);
        assertThat(bench.get("output_tokens").asInt()).isEqualTo(4);
        assertThat(bench.get("runs")).hasSize(2);
        for (JsonNode r : bench.get("runs")) {
            assertThat(r.get("output_tokens").asInt()).isEqualTo(4);
            assertThat(r.get("decode_steps").asInt()).isEqualTo(3);
            for (String metric : new String[] {"load_ms", "tokenize_ms", "prefill_ms", "prefill_tokens_per_s",
                "time_to_first_token_ms", "decode_ms", "decode_tokens_per_s"}) {
                assertThat(r.get(metric).asDouble()).as(metric).isPositive();
            }
            // Prefill is part of the time to first token; the rate is tokens over prefill time.
            assertThat(r.get("time_to_first_token_ms").asDouble()).isGreaterThanOrEqualTo(r.get("prefill_ms").asDouble());
            // 1e-9 relative: the two figures are computed from the same nanosecond count in doubles.
            assertThat(r.get("prefill_tokens_per_s").asDouble())
                    .isCloseTo(10 * 1000 / r.get("prefill_ms").asDouble(), org.assertj.core.data.Percentage.withPercentage(1e-7));
        }
        JsonNode decode = bench.at("/summary/decode_tokens_per_s");
        assertThat(decode.get("min").asDouble()).isLessThanOrEqualTo(decode.get("median").asDouble());
        assertThat(decode.get("median").asDouble()).isLessThanOrEqualTo(decode.get("max").asDouble());
        if (Files.exists(Path.of("/proc/self/status"))) assertThat(bench.get("peak_rss_kib").asLong()).isPositive();
        assertThat(bench.get("jvm_max_heap_mib").asLong()).isPositive();
        // mini in int8 mode: 6 layers x 256 slots x (K and V) x (64 int8 + 2 float scales) of KV cache.
        long kv = 6L * 256 * 2 * (64 + 2 * 4);
        assertThat(bench.get("kv_cache_bytes").asLong()).isEqualTo(kv);
        assertThat(bench.get("engine_budget_bytes").asLong()).isEqualTo(Files.size(Path.of(mini())) + kv);
        if (Files.exists(Path.of("/proc/self/status"))) {
            assertThat(bench.get("jvm_baseline_rss_kib").asLong()).isPositive();
            for (JsonNode r : bench.get("runs")) assertThat(r.has("rss_growth_mib")).isTrue();
        }
        assertThat(Files.readString(dir.resolve("bench.md"))).contains("decode_tokens_per_s").contains("peak RSS")
                .contains("JVM baseline RSS").contains("budget file + KV cache").contains("Provenance");
    }

    private static void assertOneLineError(CliRun run, String expected) {
        assertThat(run.exit()).as(run.out() + run.err()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(run.err().lines().findFirst().orElse("")).contains(expected);
        assertThat(run.err()).doesNotContain("\tat ");
    }

    private static String[] concat(String[] a, String b) {
        String[] r = java.util.Arrays.copyOf(a, a.length + 1);
        r[a.length] = b;
        return r;
    }
}
