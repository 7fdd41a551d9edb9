package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.golden.Golden;
import dev.needlewb.reports.report.Report;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every notebook under notebooks/ executed headless ({@code python3 -m nbconvert --execute}) on
 * reports this test writes with the command line: parity and the idempotence study on the golden
 * mini.cact, and its .cact -> .pt -> .cact round trip. A notebook that raises fails the test with
 * its error. Without Jupyter the test fails, naming the packages to install (.ci/run installs
 * them): a skipped notebook check would hide a broken notebook.
 */
class NotebookExecutionTest {
    private static final String PYTHON = "/usr/bin/python3";
    private static final String PACKAGES = "python3-nbconvert python3-ipykernel python3-matplotlib python3-torch python3-numpy";
    private static final Path NOTEBOOKS = Golden.projectRoot().resolve("notebooks");

    @TempDir
    static Path work;
    /** The nbconvert run of each notebook, started together once the reports exist; empty without Jupyter. */
    private static final Map<Path, Execution> executions = new HashMap<>();

    private record Execution(Process process, Path log, Path out) {}

    static List<Path> notebooks() throws IOException {
        try (Stream<Path> files = Files.list(NOTEBOOKS)) {
            return files.filter(p -> p.toString().endsWith(".ipynb")).sorted().toList();
        }
    }

    @Test
    void theNotebooksAreCommittedWithoutOutputsForThePython3Kernel() throws IOException {
        assertThat(notebooks()).extracting(p -> p.getFileName().toString())
                .contains("parity.ipynb", "idempotence.ipynb", "torch_roundtrip.ipynb");
        for (Path nb : notebooks()) {
            JsonNode json = Report.JSON.readTree(nb.toFile());
            assertThat(json.at("/metadata/kernelspec/name").asText()).as(nb.toString()).isEqualTo("python3");
            for (JsonNode cell : json.path("cells")) {
                if (!cell.path("cell_type").asText().equals("code")) continue;
                assertThat(cell.path("outputs")).as(nb + ": a cell with outputs").isEmpty();
                assertThat(cell.path("execution_count").isNull()).as(nb + ": an executed cell").isTrue();
            }
        }
    }

    @BeforeAll
    static void writeReportsAndStartTheNotebooks() throws IOException {
        if (!jupyterAvailable()) {
            fail(PYTHON + " cannot import nbconvert, ipykernel, matplotlib and torch: apt-get install -y " + PACKAGES + " (or run .ci/run)");
        }
        Path cact = Golden.mini("mini.cact");
        Path parity = work.resolve("parity");
        Path idempotence = work.resolve("idempotence");
        Path pt = work.resolve("roundtrip/mini.pt");
        Path back = work.resolve("roundtrip/back.cact");
        succeed("parity", cact.toString(), "--tokens", s040(), "--out", parity.toString());
        // Four rounds show the per-round trends; every round costs a pass over all 40 CQ tensors.
        succeed("study", "idempotence", cact.toString(), "--rounds", "4", "--out", idempotence.toString());
        Files.createDirectories(pt.getParent());
        succeed("convert", cact.toString(), "--to", pt.toString());
        succeed("convert", pt.toString(), "--to", back.toString(), "--base", cact.toString());
        Map<String, String> reports = Map.of(
                "NEEDLE_PARITY_JSON", parity.resolve("parity.json").toString(),
                "NEEDLE_IDEMPOTENCE_JSON", idempotence.resolve("idempotence.json").toString(),
                "NEEDLE_PT_MANIFEST", pt + ".manifest.json",
                "NEEDLE_BACK_MANIFEST", back + ".manifest.json",
                "NEEDLE_GOLDEN", cact.getParent().toString());
        // Side by side: most of a notebook's time is its kernel starting and importing.
        for (Path notebook : notebooks()) executions.put(notebook, start(notebook, reports));
    }

    @AfterAll
    static void stopLeftovers() {
        executions.values().forEach(e -> e.process().destroyForcibly());
    }

    @ParameterizedTest
    @MethodSource("notebooks")
    void executesWithoutErrorAndDrawsEveryFigure(Path notebook) throws Exception {
        Execution run = executions.get(notebook);
        if (!run.process().waitFor(10, TimeUnit.MINUTES)) fail(notebook + ": nbconvert did not finish in 10 minutes");
        if (run.process().exitValue() != 0) {
            // nbconvert's own traceback comes first, then the failing cell and the notebook's
            // traceback (coloured with ANSI escapes by IPython): report the latter.
            String log = Files.readString(run.log()).replaceAll("\u001B\\[[;\\d]*m", "");
            int cell = log.indexOf("An error occurred while executing the following cell");
            fail(notebook + " raised (nbconvert exit " + run.process().exitValue() + "):\n" + (cell >= 0 ? log.substring(cell) : log));
        }

        JsonNode executed = Report.JSON.readTree(run.out().resolve(notebook.getFileName()).toFile());
        int figures = 0;
        for (JsonNode cell : executed.path("cells")) {
            if (!cell.path("cell_type").asText().equals("code")) continue;
            String source = source(cell);
            boolean image = false;
            for (JsonNode output : cell.path("outputs")) {
                assertThat(output.path("output_type").asText()).as(notebook + " raised in:\n" + source).isNotEqualTo("error");
                image |= output.at("/data/image~1png").isTextual();
            }
            if (source.contains("plt.show()")) {
                assertThat(image).as(notebook + ": no figure from:\n" + source).isTrue();
                figures++;
            }
        }
        assertThat(figures).as(notebook + ": figures drawn").isPositive();
    }

    private static Execution start(Path notebook, Map<String, String> reports) throws IOException {
        String name = notebook.getFileName().toString();
        Path out = Files.createDirectories(work.resolve("executed-" + name));
        Path log = out.resolve("nbconvert.log");
        ProcessBuilder pb = new ProcessBuilder(PYTHON, "-m", "nbconvert", "--to", "notebook", "--execute",
                "--ExecutePreprocessor.timeout=300", "--output-dir", out.toString(), notebook.toString())
                .directory(NOTEBOOKS.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().putAll(reports);
        // ipykernel's debugger otherwise warns on stderr about frozen modules at every kernel start.
        pb.environment().put("PYDEVD_DISABLE_FILE_VALIDATION", "1");
        return new Execution(pb.start(), log, out);
    }

    private static String source(JsonNode cell) {
        JsonNode s = cell.path("source");
        if (s.isTextual()) return s.asText();
        StringBuilder text = new StringBuilder();
        s.forEach(line -> text.append(line.asText()));
        return text.toString();
    }

    private static boolean jupyterAvailable() {
        try {
            Process p = new ProcessBuilder(PYTHON, "-c", "import nbconvert, nbclient, ipykernel, matplotlib, torch")
                    .redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(2, TimeUnit.MINUTES) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void succeed(String... args) {
        CliRun run = CliRun.of(args);
        assertThat(run.exit()).as(String.join(" ", args) + "\n" + run.err()).isZero();
    }

    private static String s040() {
        StringJoiner ids = new StringJoiner(",");
        Golden.json(Golden.mini("sequences.json")).at("/s040/tokens").forEach(t -> ids.add(t.asText()));
        return ids.toString();
    }
}
