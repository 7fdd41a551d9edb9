package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.reports.report.Report;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code sweep geometries} without the torch engine (the 12-geometry sweep with every engine runs in the
 * torch module): how a failure is reported and reproduced, and its options' one-line errors.
 */
class GeometrySweepCommandTest {
    /**
     * A profile no engine can meet makes every comparison fail: the report names the first geometry of the
     * generation swept and the two commands that rerun it alone, and both reproduce the failure.
     */
    @ParameterizedTest
    @CsvSource({"2, 3, Needle 2, g00-", "3, 1, Needle 3, v3-g00-"})
    void aFailureNamesTheFirstGeometryAndCommandsThatReproduceIt(String generation, int count, String displayName, String firstName,
            @TempDir Path dir) throws Exception {
        Path impossible = Files.writeString(dir.resolve("impossible.json"),
                "{\"name\": \"impossible\", \"rules\": [{\"taps\": \"*\", \"why\": \"test\", \"max_rel_l2\": 1e-30}]}");
        Path out = dir.resolve("failing");
        CliRun failing = CliRun.of("sweep", "geometries", "--generation", generation, "--count", Integer.toString(count), "--widths", "256",
                "--engine", "exact", "--tokens", "4", "--profile", impossible.toString(), "--out", out.toString());
        assertThat(failing.exit()).as(failing.err()).isEqualTo(1);
        JsonNode sweep = Report.JSON.readTree(out.resolve("sweep.json").toFile()).path("sweep");
        assertThat(sweep.path("passed").asBoolean()).isFalse();
        assertThat(sweep.path("crashed").asBoolean()).isFalse();
        JsonNode first = sweep.path("first_failure");
        assertThat(first.path("index").asInt()).isZero();
        assertThat(first.path("generation").asText()).isEqualTo(displayName);
        assertThat(first.path("geometry").asText()).startsWith(firstName);
        assertThat(first.path("failure").asText()).startsWith("256 bits: exact out of tolerance (profile impossible) at ");
        List<String> reproduce = new ArrayList<>();
        first.path("reproduce").forEach(r -> reproduce.add(r.asText()));
        assertThat(reproduce).hasSize(2);
        assertThat(reproduce.get(0)).startsWith("./needle-wb sweep geometries --generation " + generation + " --seed 2026 --count " + count
                + " --only 0 --widths 256 --engine exact");
        assertThat(reproduce.get(1)).startsWith("NEEDLE_VECTOR_BITS=256 ./needle-wb parity ");
        assertThat(failing.out()).contains("FAIL: 0 of " + count + " geometries").contains("reproduce: " + reproduce.get(0));
        assertThat(Files.readString(out.resolve("sweep.md"))).contains("## First failure").contains(reproduce.get(1));

        CliRun alone = CliRun.of(arguments(reproduce.get(0)));
        assertThat(alone.exit()).isEqualTo(1);
        JsonNode again = Report.JSON.readTree(out.resolve("only-" + first.path("geometry").asText()).resolve("sweep.json").toFile()).path("sweep");
        assertThat(again.path("geometries")).hasSize(1);
        assertThat(again.at("/first_failure/geometry").asText()).isEqualTo(first.path("geometry").asText());
        CliRun parity = CliRun.of(arguments(reproduce.get(1)));
        assertThat(parity.exit()).as(parity.err()).isEqualTo(1);
    }

    /** The arguments of a reproduce line, without the environment and the launcher. */
    private static String[] arguments(String line) {
        List<String> words = new ArrayList<>(List.of(line.split(" ")));
        while (!words.getFirst().equals("./needle-wb")) words.removeFirst();
        words.removeFirst();
        return words.toArray(String[]::new);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--count 0 | --count must be 1..10000, got 0",
        "--generation 3 --count 3 --only 3 | --only must be 0..2 (--count 3), got 3",
        "--only 0 | --only needs --generation 2 or 3 (each generation's draws are numbered from 0)",
        "--generation 4 | --generation must be 2, 3 or both, got '4'",
        "--widths 64 | --widths: 64 is not one of 128, 256, 512",
        "--engine exact,cuda | --engine: unknown engine 'cuda' (known: exact, int8, batch, torch)",
        "--tokens 1 | --tokens must be 2..256, got 1",
        "--profile nope.json | nope.json: no such profile file",
        "--engine exact,torch | the torch engine is not in this jar"})
    void badOptionsAreOneLineErrorsAndWriteNothing(String options, String message, @TempDir Path dir) {
        List<String> args = new ArrayList<>(List.of("sweep", "geometries", "--out", dir.resolve("out").toString()));
        args.addAll(List.of(options.strip().split(" ")));
        CliRun run = CliRun.of(args.toArray(String[]::new));
        assertThat(run.exit()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(run.err().strip()).doesNotContain("\n").contains(message);
        assertThat(dir.resolve("out")).doesNotExist();
    }
}
