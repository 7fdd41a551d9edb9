package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.reports.report.Report;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A header's max_seq_len sizes nothing: the golden mini with a context of 2^24, 2^26 or 2^31 - 1 (the
 * most the reader takes) runs every command on the positions it uses, as fast as with its own 256. Before,
 * the session built RoPE tables and KV caches for every position up front: 2^24 took 25 s and 2.7 GB for
 * four tokens, 2^26 ran out of memory and 2^31 - 1 overflowed an array size (exit 3).
 */
class LongContextHeaderTest {
    @ParameterizedTest
    @ValueSource(ints = {1 << 24, 1 << 26, Integer.MAX_VALUE})
    void everyCommandRunsOnThePositionsItUses(int maxSeqLen, @TempDir Path dir) throws Exception {
        Path file = MiniVariants.withGeometry(dir.resolve("long.cact"), g -> MiniVariants.maxSeqLen(g, maxSeqLen));
        String cact = file.toString();
        // Each command in the heap the tests run with: a 2^26-position table alone would need gigabytes.
        CliRun generate = CliRun.of("generate", cact, "--prompt", "What is the weather in Paris?", "--max-new", "4", "--json");
        assertThat(generate.exit()).as(generate.err()).isZero();
        assertThat(Report.JSON.readTree(generate.out()).path("generated_ids")).hasSize(4);
        for (List<String> command : List.of(
                List.of("generate", cact, "--prompt", "Hi", "--max-new", "3", "--mode", "exact", "--prefill", "batch"),
                List.of("bench", cact, "--new-tokens", "2", "--warmup", "0", "--repetitions", "1", "--out", dir.resolve("bench").toString()),
                List.of("parity", cact, "--tokens", MiniVariants.tokens(12), "--engine", "exact,int8,batch", "--no-html",
                        "--out", dir.resolve("parity").toString()),
                List.of("reference", cact, "--tokens", MiniVariants.tokens(8), "--cached", "--out", dir.resolve("ref.npz").toString()))) {
            CliRun run = CliRun.of(command.toArray(String[]::new));
            assertThat(run.exit()).as(command + ": " + run.err()).isZero();
        }
        assertThat(Files.readString(dir.resolve("parity/parity.md"))).contains("PASS");
        // The mini's 6 layers x 256 slots (the first allocation) x K and V x (64 int8 + 2 float scales).
        JsonNode bench = Report.JSON.readTree(dir.resolve("bench/bench.json").toFile()).path("bench");
        assertThat(bench.path("kv_cache_bytes").asLong()).isEqualTo(6L * 256 * 2 * (64 + 2 * 4));
    }
}
