package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needlewb.golden.Golden;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sweep parity} on the golden Needle 2 and Needle 3 minis, without Spark: every (model, engine,
 * prompt) row holds the numbers a single {@code parity} run gives for that prompt alone, passing rows
 * and failing ones.
 */
class ParitySweepCommandTest {
    /** A text prompt (each model's tokenizer encodes it) besides two of upstream's golden token sequences. */
    private static final String TEXT = "What is the weather in Paris?";

    @TempDir
    static Path dir;
    private static List<Path> models;
    private static Path prompts;
    private static CliRun sweep;
    private static JsonNode report;

    private static String golden(String sequence) {
        StringJoiner ids = new StringJoiner(",");
        Golden.json(Golden.mini("sequences.json")).at("/" + sequence + "/tokens").forEach(t -> ids.add(t.asText()));
        return ids.toString();
    }

    @BeforeAll
    static void sweepBothMinis() throws Exception {
        models = List.of(Golden.mini("mini.cact"), Golden.v3mini("mini3.cact"));
        prompts = Files.writeString(dir.resolve("prompts.jsonl"), "{\"id\": \"s007\", \"tokens\": [" + golden("s007") + "]}\n"
                + "\n{\"id\": \"s040\", \"tokens\": [" + golden("s040") + "]}\n{\"prompt\": \"" + TEXT + "\"}\n");
        List<String> args = new ArrayList<>(List.of("sweep", "parity"));
        models.forEach(m -> args.add(m.toString()));
        args.addAll(List.of("--prompts", prompts.toString(), "--engine", "exact,int8", "--out", dir.resolve("sweep").toString()));
        sweep = CliRun.of(args.toArray(String[]::new));
        report = sweep.exit() == 0 ? new ObjectMapper().readTree(dir.resolve("sweep/parity-sweep.json").toFile()) : null;
    }

    @Test
    void everyRowHoldsWhatParityGivesForItsPromptAlone() throws Exception {
        assertThat(sweep.exit()).as(sweep.out() + sweep.err()).isZero();
        JsonNode body = report.path("parity_sweep");
        assertThat(body.path("rows").size()).isEqualTo(2 * 2 * 3);
        assertThat(body.at("/prompts/2/id").asText()).isEqualTo("line 4");
        assertThat(body.at("/models/1/generation").asText()).isEqualTo("Needle 3");
        for (Path model : models) {
            for (String prompt : List.of("s007", "s040", "line 4")) {
                String[] input = prompt.equals("line 4") ? new String[] {"--prompt", TEXT} : new String[] {"--tokens", golden(prompt)};
                JsonNode alone = parity(model, input, "exact,int8");
                for (JsonNode comparison : alone.path("comparisons")) {
                    assertSameRow(row(model, comparison.path("engine").asText(), prompt), comparison, alone.path("positions").asInt());
                }
            }
        }
        assertThat(sweep.out()).contains("PASS: all ", " judged taps of the 12 prompt runs (2 models x 2 engines x 3 prompts) within tolerance");
        assertThat(body.at("/summary/0/text").asText()).startsWith(models.get(0) + ", engine exact: 3 of 3 prompts within tolerance; largest error on prompt ");
        assertThat(sweep.err()).contains("sweep parity: 100% (12/12 prompt runs)");
    }

    /** int8 held to the strict profile fails; the row names the tap and limits a single run names. */
    @Test
    void aFailingRowNamesTheTapParityNames() throws Exception {
        Path one = Files.writeString(dir.resolve("one.txt"), TEXT + "\n");
        Path out = dir.resolve("failing");
        CliRun failing = CliRun.of("sweep", "parity", models.get(0).toString(), "--prompts", one.toString(), "--engine", "int8",
                "--profile", "strict", "--out", out.toString());
        assertThat(failing.exit()).as(failing.err()).isEqualTo(1);
        JsonNode alone = parity(models.get(0), new String[] {"--prompt", TEXT, "--profile", "strict"}, "int8");
        JsonNode row = new ObjectMapper().readTree(out.resolve("parity-sweep.json").toFile()).at("/parity_sweep/rows/0");
        JsonNode comparison = alone.at("/comparisons/0");
        assertThat(comparison.path("passed").asBoolean()).isFalse();
        assertSameRow(row, comparison, alone.path("positions").asInt());
        assertThat(failing.out()).startsWith("FAIL: 1 of the 1 prompt run (1 model x 1 engine x 1 prompt) out of tolerance; the first: "
                + models.get(0) + ", engine int8, prompt line 1, " + comparison.at("/first_failure/tap").asText());
    }

    private static JsonNode parity(Path model, String[] input, String engines) throws Exception {
        Path out = Files.createTempDirectory(dir, "alone");
        List<String> args = new ArrayList<>(List.of("parity", model.toString(), "--engine", engines, "--no-html", "--out", out.toString()));
        args.addAll(List.of(input));
        CliRun run = CliRun.of(args.toArray(String[]::new));
        assertThat(run.exit()).as(run.err()).isIn(0, 1);
        return new ObjectMapper().readTree(out.resolve("parity.json").toFile()).path("parity");
    }

    private static JsonNode row(Path model, String engine, String prompt) {
        for (JsonNode r : report.at("/parity_sweep/rows")) {
            if (r.path("model").asText().equals(model.toString()) && r.path("engine").asText().equals(engine) && r.path("prompt").asText().equals(prompt)) return r;
        }
        throw new AssertionError("no row for " + model + ", " + engine + ", " + prompt);
    }

    /** The row's numbers are the single run's, bit for bit: the same forward passes on the same ids. */
    private static void assertSameRow(JsonNode row, JsonNode comparison, int positions) {
        assertThat(row.path("positions").asInt()).isEqualTo(positions);
        assertThat(row.path("profile").asText()).isEqualTo(comparison.path("profile").asText());
        assertThat(row.path("passed").asBoolean()).isEqualTo(comparison.path("passed").asBoolean());
        JsonNode worst = null, logits = null;
        int judged = 0;
        for (JsonNode tap : comparison.path("taps")) {
            if (tap.has("rule")) judged++;
            if (tap.has("top1")) logits = tap;
            else if (worst == null || tap.path("rel_l2").asDouble() > worst.path("rel_l2").asDouble()) worst = tap;
        }
        assertThat(row.path("judged_taps").asInt()).isEqualTo(judged);
        assertThat(row.at("/worst_tap/name").asText()).isEqualTo(worst.path("name").asText());
        assertThat(row.at("/worst_tap/rel_l2").asDouble()).isEqualTo(worst.path("rel_l2").asDouble());
        for (String metric : List.of("rel_l2", "top1", "mean_kl", "max_prob_diff")) {
            assertThat(row.at("/logits/" + metric).asDouble()).as(metric).isEqualTo(logits.path(metric).asDouble());
        }
        JsonNode first = comparison.path("first_failure");
        assertThat(row.has("first_failure")).isEqualTo(!first.isMissingNode());
        if (!first.isMissingNode()) {
            assertThat(row.at("/first_failure/tap")).isEqualTo(first.path("tap"));
            assertThat(row.at("/first_failure/operation")).isEqualTo(first.path("operation"));
            assertThat(row.at("/first_failure/violations")).isEqualTo(first.path("violations"));
        }
    }
}
