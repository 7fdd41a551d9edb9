package dev.needlewb.spark;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.needlewb.cli.Main;
import dev.needlewb.golden.Golden;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code eval toolcalls} on the golden mini model run without Spark, on {@code local[2]}, and on a
 * standalone cluster of two one-core workers on 127.0.0.1 (once as is, once with a worker killed
 * while a task of its runs) writes the same report: the same JSON but for the run's timing fields,
 * its creation time and its command line. So does {@code sweep parity} over the Needle 2 and Needle 3 minis
 * (on {@code local[2]} and the cluster), and {@code study idempotence} and {@code sweep geometries} on
 * {@code local[2]}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SparkSweepTest {
    /** What a run measures about itself rather than about the model: the only fields allowed to differ. */
    private static final Set<String> TIMING = Set.of("wall_s", "decode_tokens_per_s", "seconds");

    @TempDir
    static Path dir;
    private static JsonNode plain;
    private static StandaloneCluster cluster;
    private static JsonNode parityPlain;

    record Run(int exit, String err, JsonNode report) {}

    @BeforeAll
    static void runWithoutSpark() throws Exception {
        Run run = eval("plain");
        assertThat(run.exit()).as(run.err()).isZero();
        plain = run.report();
        cluster = StandaloneCluster.start(dir.resolve("cluster"), 2);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) cluster.close();
    }

    @Test
    @Order(1)
    void localTwoWritesThePlainRunsReport() throws Exception {
        Run run = eval("local", "--master", "local[2]");
        assertSameReport(run);
        assertThat(run.err()).contains("(Spark tasks: ").contains("cases in ").contains("0 failed, 0 retried");
    }

    @Test
    @Order(1)
    void aMasterSparkCannotUseIsAOneLineErrorAndWritesNothing() throws Exception {
        Run run = eval("bogus", "--master", "bogus://nowhere");
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains("needle-wb: --master bogus://nowhere: Spark did not start: ");
        assertThat(dir.resolve("bogus")).doesNotExist();
    }

    @Test
    @Order(1)
    void theIdempotenceStudyOnLocalTwoWritesThePlainRunsReport() throws Exception {
        JsonNode alone = study("study-plain");
        JsonNode spread = study("study-local", "--master", "local[2]");
        assertThat(spread.get("idempotence").get("tensors").size()).isGreaterThan(2);
        assertThat(comparable(spread)).isEqualTo(comparable(alone));
    }

    @Test
    @Order(1)
    void theGeometrySweepOnLocalTwoWritesThePlainRunsReport() throws Exception {
        JsonNode alone = sweep();
        JsonNode spread = sweep("--master", "local[2]");
        assertThat(spread.get("sweep").get("geometries").size()).isEqualTo(2);
        assertThat(spread.get("sweep").get("geometries").get(0).has("model")).isTrue();
        assertThat(spread.get("sweep").get("geometries").get(1).get("generation").asText()).isEqualTo("Needle 3");
        assertThat(comparable(spread)).isEqualTo(comparable(alone));
    }

    @Test
    @Order(1)
    void theParitySweepOnLocalTwoWritesThePlainRunsReport() throws Exception {
        Run spread = paritySweep("parity-local", "--master", "local[2]");
        assertThat(spread.exit()).as(spread.err()).isZero();
        assertThat(spread.err()).contains("(Spark tasks: ").contains("8 prompt runs in ").contains("0 failed, 0 retried");
        assertThat(comparable(spread.report())).isEqualTo(comparable(parityPlain()));
    }

    @Test
    @Order(2)
    void theParitySweepOnAStandaloneClusterWritesThePlainRunsReport() throws Exception {
        Run run = paritySweep("parity-cluster", clusterOptions());
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(comparable(run.report())).isEqualTo(comparable(parityPlain()));
    }

    @Test
    @Order(2)
    void aStandaloneClusterWritesThePlainRunsReport() throws Exception {
        Run run = eval("cluster", clusterOptions());
        assertSameReport(run);
    }

    @Test
    @Order(3)
    void aWorkerKilledMidRunLosesNothing() throws Exception {
        WorkerKiller.TARGET.set(new WorkerKiller.Target(cluster, 1));
        List<String> options = new ArrayList<>(List.of(clusterOptions()));
        options.addAll(List.of("--conf", "spark.extraListeners=" + WorkerKiller.class.getName()));
        Run run = eval("killed", options.toArray(String[]::new));
        assertThat(WorkerKiller.KILLED_EXECUTOR.get()).as("a task started on worker 1's executor and the worker was killed").isNotNull();
        assertThat(run.err()).contains("failed on executor " + WorkerKiller.KILLED_EXECUTOR.get());
        assertSameReport(run);
    }

    /**
     * The cluster, the model shipped with SparkFiles, three partitions per engine, and no task before
     * both executors are up: so that both get work.
     */
    private static String[] clusterOptions() {
        return new String[] {"--master", cluster.url(), "--ship-models", "--partitions", "3",
            "--conf", "spark.scheduler.minRegisteredResourcesRatio=1.0", "--conf", "spark.scheduler.maxRegisteredResourcesWaitingTime=300s",
            "--conf", "spark.driver.host=" + StandaloneCluster.LOOPBACK, "--conf", "spark.driver.bindAddress=" + StandaloneCluster.LOOPBACK,
            "--conf", "spark.executor.memory=768m", "--conf", "spark.executor.extraClassPath=" + StandaloneCluster.executorClassPath()};
    }

    private static Run eval(String name, String... options) throws Exception {
        Path out = dir.resolve(name);
        List<String> args = new ArrayList<>(List.of("eval", "toolcalls", Golden.mini("mini.cact").toString(), "--cases",
                Golden.projectRoot().resolve("reports/src/test/resources/toolcalls/mini-cases.jsonl").toString(),
                "--engine", "exact,batch", "--profile", "strict", "--max-new", "48", "--threads", "1", "--out", out.toString()));
        args.addAll(List.of(options));
        StringWriter stdout = new StringWriter(), stderr = new StringWriter();
        int exit = Main.run(args.toArray(String[]::new), new PrintWriter(stdout, true), new PrintWriter(stderr, true));
        JsonNode report = exit == 0 ? new ObjectMapper().readTree(out.resolve("toolcalls.json").toFile()) : null;
        return new Run(exit, stdout + "\n" + stderr, report);
    }

    /** {@code study idempotence} on the mini model, three rounds per tensor: a report per run. */
    private static JsonNode study(String name, String... options) throws Exception {
        Path out = dir.resolve(name);
        List<String> args = new ArrayList<>(List.of("study", "idempotence", Golden.mini("mini.cact").toString(), "--rounds", "3", "--out", out.toString()));
        args.addAll(List.of(options));
        StringWriter stdout = new StringWriter(), stderr = new StringWriter();
        int exit = Main.run(args.toArray(String[]::new), new PrintWriter(stdout, true), new PrintWriter(stderr, true));
        assertThat(exit).as(stderr.toString()).isZero();
        return new ObjectMapper().readTree(out.resolve("idempotence.json").toFile());
    }

    /**
     * {@code sweep geometries} of one draw of each generation at 256 bits, engine exact, into the same folder each time (the report
     * names its files).
     */
    private static JsonNode sweep(String... options) throws Exception {
        Path out = dir.resolve("sweep");
        List<String> args = new ArrayList<>(List.of("sweep", "geometries", "--count", "1", "--widths", "256", "--engine", "exact", "--tokens", "4",
                "--out", out.toString()));
        args.addAll(List.of(options));
        StringWriter stdout = new StringWriter(), stderr = new StringWriter();
        int exit = Main.run(args.toArray(String[]::new), new PrintWriter(stdout, true), new PrintWriter(stderr, true));
        assertThat(exit).as(stdout + "\n" + stderr).isZero();
        return new ObjectMapper().readTree(out.resolve("sweep.json").toFile());
    }

    /** {@code sweep parity} of the plain run, once: 2 models x 2 engines x 2 prompts. */
    private static synchronized JsonNode parityPlain() throws Exception {
        if (parityPlain == null) {
            Run run = paritySweep("parity-plain");
            assertThat(run.exit()).as(run.err()).isZero();
            assertThat(run.report().at("/parity_sweep/rows").size()).isEqualTo(8);
            assertThat(run.report().at("/parity_sweep").has("wall_s")).as("the timing field this test leaves out still exists").isTrue();
            parityPlain = run.report();
        }
        return parityPlain;
    }

    /** {@code sweep parity} of two short prompts (a text and upstream's s007 ids) over the golden Needle 2 and Needle 3 minis. */
    private static Run paritySweep(String name, String... options) throws Exception {
        Path out = dir.resolve(name);
        // One file for every run: the report names it.
        Path prompts = Files.writeString(dir.resolve("prompts.jsonl"), "{\"prompt\": \"What is the weather in Paris?\"}\n"
                + "{\"id\": \"s007\", \"tokens\": " + Golden.json(Golden.mini("sequences.json")).at("/s007/tokens") + "}\n");
        List<String> args = new ArrayList<>(List.of("sweep", "parity", Golden.mini("mini.cact").toString(), Golden.v3mini("mini3.cact").toString(),
                "--prompts", prompts.toString(), "--out", out.toString()));
        args.addAll(List.of(options));
        StringWriter stdout = new StringWriter(), stderr = new StringWriter();
        int exit = Main.run(args.toArray(String[]::new), new PrintWriter(stdout, true), new PrintWriter(stderr, true));
        JsonNode report = exit == 0 ? new ObjectMapper().readTree(out.resolve("parity-sweep.json").toFile()) : null;
        return new Run(exit, stdout + "\n" + stderr, report);
    }

    private static void assertSameReport(Run run) {
        assertThat(run.exit()).as(run.err()).isZero();
        assertThat(run.report().get("toolcalls").get("engines").get(0).has("wall_s")).as("the timing fields this test leaves out still exist").isTrue();
        assertThat(comparable(run.report())).isEqualTo(comparable(plain));
    }

    /** The report without the fields that describe the run rather than its results. */
    private static JsonNode comparable(JsonNode report) {
        ObjectNode copy = report.deepCopy();
        copy.remove(List.of("created", "command_line"));
        dropTiming(copy);
        return copy;
    }

    private static void dropTiming(JsonNode node) {
        if (node instanceof ObjectNode o) {
            for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) if (TIMING.contains(it.next())) it.remove();
        }
        for (JsonNode child : node) dropTiming(child);
    }
}
