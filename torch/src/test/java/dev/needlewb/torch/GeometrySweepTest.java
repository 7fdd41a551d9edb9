package dev.needlewb.torch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.core.v3.V3Geometry;
import dev.needlewb.golden.Golden;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code sweep geometries}: 12 Needle 2 geometries drawn from upstream's exporter rules (the 8 corners, then 4
 * random ones) and the first 4 Needle 3 corners, each checkpoint converted as a user would and held to the float64
 * reference by every engine (exact, int8, batch, torch) at 128, 256 and 512 bits. Then every command a user runs
 * on a model (inspect, reference, generate free and with tools, parity, eval) on every file the sweeps wrote
 * and every .cact of the golden data: a file that passed validation never ends a command in an internal
 * error (exit 3).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GeometrySweepTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> ENGINES = List.of("exact", "int8", "batch", "torch");
    private static final String WEATHER = "{\"name\":\"get_weather\",\"parameters\":{\"type\":\"object\",\"properties\":"
            + "{\"city\":{\"type\":\"string\",\"maxLength\":8}},\"required\":[\"city\"]}}";

    private Path dir;
    private Cli sweep, sweep3;
    private JsonNode report, report3;

    @BeforeAll
    void sweepTwelveGeometries(@TempDir Path tmp) throws Exception {
        dir = tmp;
        long t0 = System.nanoTime();
        sweep = Cli.run("sweep", "geometries", "--generation", "2", "--count", "12", "--seed", "2026", "--tokens", "12", "--out",
                dir.resolve("sweep").toString());
        System.out.printf("sweep geometries --generation 2 --count 12 (3 widths, 4 engines): %.1f s%n", (System.nanoTime() - t0) / 1e9);
        report = JSON.readTree(dir.resolve("sweep/sweep.json").toFile()).path("sweep");
        // 20 positions: int8-v3's top-1 rule allows one flip in 20 (a near tie of random weights' flat logits), none in 12
        t0 = System.nanoTime();
        sweep3 = Cli.run("sweep", "geometries", "--generation", "3", "--count", "4", "--seed", "2026", "--tokens", "20", "--out",
                dir.resolve("sweep3").toString());
        System.out.printf("sweep geometries --generation 3 --count 4 (3 widths, 4 engines): %.1f s%n", (System.nanoTime() - t0) / 1e9);
        report3 = JSON.readTree(dir.resolve("sweep3/sweep.json").toFile()).path("sweep");
    }

    /** Every geometry of {@code r} converted and passed every engine at every width. */
    private static void assertEveryComparisonPassed(Cli run, JsonNode r, int geometries) {
        assertThat(run.exit()).as(run.out() + run.err()).isZero();
        assertThat(r.path("passed").asBoolean()).isTrue();
        assertThat(r.path("crashed").asBoolean()).isFalse();
        assertThat(r.path("geometries")).hasSize(geometries);
        for (JsonNode g : r.path("geometries")) {
            String name = g.path("name").asText();
            assertThat(g.at("/convert/exit").asInt()).as(name).isZero();
            for (String width : List.of("128", "256", "512")) {
                JsonNode w = g.path("widths").path(width);
                assertThat(w.at("/parity/exit").asInt()).as(name + " at " + width).isZero();
                for (String engine : ENGINES) {
                    JsonNode e = w.path("engines").path(engine);
                    assertThat(e.path("passed").asBoolean()).as(name + " " + engine + " at " + width).isTrue();
                    assertThat(e.path("share_of_limit").asDouble()).as(name + " " + engine + " at " + width).isBetween(0.0, 1.0);
                }
            }
        }
    }

    @Test
    void everyGeometryPassesEveryEngineAtEveryWidth() throws Exception {
        assertEveryComparisonPassed(sweep, report, 12);
        Set<Integer> headDims = new TreeSet<>(), bits = new TreeSet<>(), groups = new TreeSet<>();
        boolean dOdd = false, attnBelowD = false, attnAboveD = false, hadaAboveD = false, shortTables = false;
        for (JsonNode g : report.path("geometries")) {
            assertThat(g.path("generation").asText()).isEqualTo("Needle 2");
            try (CactFile f = CactFile.open(Path.of(g.path("model").asText()))) {
                var geometry = Geometry.of(f.geometry());
                headDims.add(geometry.headDim());
                dOdd |= geometry.dModel() % 16 != 0;
                attnBelowD |= geometry.qDim() < geometry.dModel();
                attnAboveD |= geometry.qDim() > geometry.dModel();
                hadaAboveD |= geometry.hadaN() > geometry.dModel();
                shortTables |= geometry.numEngramSites() > 0 && geometry.numEngramTables() * geometry.engramSubDim() < geometry.dModel();
                groups.add(f.cqGroup());
                for (TensorRecord r : f.tensors()) if (r.bits() > 0) bits.add(r.bits());
            }
        }
        // What the sweep must cover to mean anything: head dims off the 16-lane grid, every record width, both groups.
        assertThat(headDims).contains(8, 24, 40, 72, 100);
        assertThat(bits).containsExactly(2, 3, 4, 5);
        assertThat(groups).containsExactly(64, 128);
        assertThat(List.of(dOdd, attnBelowD, attnAboveD, hadaAboveD, shortTables)).containsOnly(true);
        String md = Files.readString(dir.resolve("sweep/sweep.md"));
        assertThat(md).contains("**PASS: 12 geometries x 3 widths x 4 engines").contains("| geometry | generation | bits | parity | exact | int8 | batch | torch |")
                .contains("g07-issue33-d96-hd24");
    }

    /**
     * The first four Needle 3 corners pass every engine at every width, and their files take each rule's branches: conv taps
     * off and on, windows off, below and above the 20-position prompt, global layer sets none, some and all, qk != v,
     * the headwise gate ({@code gate_proj [H, d]}), block-untied factors ({@code w1a [bb, ba, ba]}), a seed stride
     * other than the heads, out_vocab cut, CQ2 and CQ4, groups 64 and 128.
     */
    @Test
    void everyNeedle3GeometryPassesEveryEngineAtEveryWidth() throws Exception {
        assertEveryComparisonPassed(sweep3, report3, 4);
        Set<String> branches = new TreeSet<>();
        Set<Integer> bits = new TreeSet<>(), groups = new TreeSet<>();
        for (JsonNode g : report3.path("geometries")) {
            assertThat(g.path("generation").asText()).isEqualTo("Needle 3");
            try (CactFile f = CactFile.open(Path.of(g.path("model").asText()))) {
                V3Geometry v = V3Geometry.of(f.geometry());
                branches.add(v.qkvConvTaps() == 0 ? "no taps" : "taps");
                if (v.slidingWindow() == 0) branches.add("window off");
                if (v.slidingWindow() > 0 && v.slidingWindow() < 20) branches.add("window below the prompt");
                if (v.slidingWindow() > 20) branches.add("window above the prompt");
                int global = v.globalLayers().length;
                if (v.slidingWindow() > 0) branches.add(global == 0 ? "no global layer" : global == v.numLayers() ? "all global" : "some global");
                if (v.qkHeadDim() != v.vHeadDim()) branches.add("qk != v");
                if (v.engramSeedStride() != v.engramHeads()) branches.add("seed stride");
                if (v.outVocab() < v.vocab()) branches.add("out_vocab cut");
                if (f.tensor("layer00.gate_proj").shape()[0] == v.numHeads()) branches.add("headwise gate");
                if (f.tensor("layer00.w1a").shape().length == 3) branches.add("block-untied factors");
                groups.add(f.cqGroup());
                for (TensorRecord r : f.tensors()) if (r.bits() > 0) bits.add(r.bits());
            }
        }
        assertThat(branches).containsExactly("all global", "block-untied factors", "headwise gate", "no global layer", "no taps",
                "out_vocab cut", "qk != v", "seed stride", "some global", "taps", "window above the prompt", "window below the prompt", "window off");
        assertThat(bits).containsExactly(2, 4);
        assertThat(groups).containsExactly(64, 128);
        assertThat(Files.readString(dir.resolve("sweep3/sweep.md"))).contains("**PASS: 4 geometries x 3 widths x 4 engines")
                .contains("| v3-g00-window3-taps3-gqa | Needle 3 | 128 |");
    }

    Stream<Path> validFiles() throws Exception {
        List<Path> files = new ArrayList<>();
        for (JsonNode g : report.path("geometries")) files.add(Path.of(g.path("model").asText()));
        for (JsonNode g : report3.path("geometries")) files.add(Path.of(g.path("model").asText()));
        files.add(Golden.mini("mini.cact"));
        files.add(Golden.v3mini("mini3.cact"));
        return files.stream();
    }

    /** Every command on every file that passes validation (the golden Needle 2 and Needle 3 minis among them) ends in 0 or 1, never 3. */
    @ParameterizedTest
    @MethodSource("validFiles")
    void everyCommandEndsInAVerdictOnAValidFile(Path model) throws Exception {
        Path work = Files.createDirectories(dir.resolve("commands").resolve(model.getParent().getFileName().toString()));
        String file = model.toString();
        Path tools = Files.writeString(work.resolve("tools.json"), "[" + WEATHER + "]");
        Path cases = Files.writeString(work.resolve("cases.jsonl"), "{\"id\":\"w\",\"query\":\"Paris?\",\"tools\":[" + WEATHER + "]}\n");
        String ids;
        try (CactFile f = CactFile.open(model)) {
            StringJoiner j = new StringJoiner(",");
            for (int i = 0; i < 10; i++) j.add(Integer.toString(i == 0 ? 2 : 14 + i * 17 % (f.geometry().vocab() - 14)));
            ids = j.toString();
        }
        List<String[]> commands = List.of(
                new String[] {"inspect", file},
                new String[] {"reference", file, "--tokens", ids, "--out", work.resolve("ref.npz").toString()},
                new String[] {"generate", file, "--prompt", "Hello", "--max-new", "4"},
                new String[] {"generate", file, "--tools", tools.toString(), "--query", "Paris?", "--max-new", "48", "--think-max", "4"},
                new String[] {"parity", file, "--tokens", ids, "--no-html", "--out", work.resolve("parity").toString()},
                new String[] {"eval", "toolcalls", file, "--cases", cases.toString(), "--max-new", "48", "--think-max", "4",
                    "--out", work.resolve("eval").toString()});
        for (String[] command : commands) {
            Cli run = Cli.run(command);
            assertThat(run.exit()).as(String.join(" ", command) + "\n" + run.err()).isIn(0, 1);
        }
    }
}
