package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.v2.V2Header;
import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.converter.cact.CactDType;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.CactModel;
import dev.needlewb.converter.cact.CactTensor;
import dev.needlewb.converter.cact.CactWriter;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.converter.convert.ModelWeights;
import dev.needlewb.converter.convert.WeightSources;
import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.converter.flax.FlaxCheckpointReader;
import dev.needlewb.converter.flax.FlaxCheckpointWriter;
import dev.needlewb.converter.flax.FlaxConfig;
import dev.needlewb.converter.flax.KvBudget;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.golden.CqAudit;
import dev.needlewb.golden.Golden;
import dev.needlewb.golden.PythonProcess;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.EngineOptions;
import dev.needlewb.engine.Session;
import dev.needlewb.reference.ForwardOptions;
import dev.needlewb.reference.SyntheticParams;
import dev.needlewb.reports.report.Report;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Checkpoints of small and odd geometries exported the way a user does
 * ({@code convert ckpt.pkl --to x.cact}), compared with what upstream's exporter writes, then run
 * through every command. The expected files come from {@code cact/expected_export.py}, a numpy
 * statement of upstream's build_export written for this test; the header fields are also checked
 * one by one against upstream's arithmetic, worked out in the comments.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OddGeometryExportTest {
    private static final Path TOK = Golden.mini("tok512.model");
    /** BOS and 23 more ids inside the 512-piece vocabulary. */
    private static final String TOKENS = MiniVariants.tokens(24);

    /** One checkpoint to export: its config, the heads it keeps, the convert options. */
    enum Case {
        /**
         * max_seq_len 64, d_model 96 (groups padded 96 -> 128), one layer, one engram site, one probe
         * head, 3-bit and ternary matrices (k_proj 3-bit beside ternary q/v/gate), group 64.
         */
        CTX64_D96(config(96, 3, 1, 1, 64, List.of(0L), 64, 0, ""), Set.of("confidence_head"),
                "embedding=4,mhc=3,attn.k_proj=3,default=1.58", "64"),
        /** max_seq_len 128, d_model 320 (hada_n 512, 320 -> 384), two layers, no engram sites, no heads, bits from the config. */
        CTX128_D320(config(320, 5, 5, 2, 128, List.of(), 8192, 0, "embedding=4,mhc=4,default=3"), Set.of(), null, null),
        /** max_seq_len 128 with a configured kv_window 100 (it binds), unsorted sites [1, 0], both heads with contrastive_dim 0. */
        CTX128_WINDOW100(withContrastiveDim(config(96, 3, 3, 2, 128, List.of(1L, 0L), 32, 100, ""), 0),
                Set.of("contrastive_head", "confidence_head"), null, null);

        final Map<String, Object> config;
        final Set<String> heads;
        final String bitsMap;
        final String group;

        Case(Map<String, Object> config, Set<String> heads, String bitsMap, String group) {
            this.config = config;
            this.heads = heads;
            this.bitsMap = bitsMap;
            this.group = group;
        }
    }

    private Path dir;
    /** Groups below the command line's 64, which upstream's build_export(group=...) writes. */
    private static final int[] SMALL_GROUPS = {32, 16};
    /** Every record width in one file: 4-bit embedding, 2-bit mHC, 3-bit k_proj, ternary elsewhere. */
    private static final String SMALL_GROUP_BITS = "embedding=4,mhc=2,attn.k_proj=3,default=1.58";

    private final Map<Case, Path> checkpoints = new LinkedHashMap<>();
    private final Map<Case, Path> exports = new LinkedHashMap<>();
    private final Map<Case, Path> expected = new LinkedHashMap<>();
    private Path tokenizerless;
    private Path tokenizerlessExpected;

    private static Map<String, Object> config(int d, int heads, int kvHeads, int layers, int maxSeqLen, List<Long> sites,
            int slots, int kvWindow, String weightBits) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("vocab_size", 512L);
        c.put("d_model", (long) d);
        c.put("num_heads", (long) heads);
        c.put("num_kv_heads", (long) kvHeads);
        c.put("num_layers", (long) layers);
        c.put("max_seq_len", (long) maxSeqLen);
        c.put("engram_layers", sites);
        c.put("engram_slots", (long) slots);
        c.put("kv_window", (long) kvWindow);
        c.put("contrastive_dim", 16L);
        if (!weightBits.isEmpty()) c.put("weight_bits", weightBits);
        return c;
    }

    private static Map<String, Object> withContrastiveDim(Map<String, Object> c, int dim) {
        c.put("contrastive_dim", (long) dim);
        return c;
    }

    @BeforeAll
    void exportEveryCase(@TempDir Path tmp) throws Exception {
        dir = tmp;
        StringJoiner jobs = new StringJoiner(",", "[", "]");
        for (Case c : Case.values()) {
            Path ckpt = dir.resolve(c.name() + ".pkl");
            FlaxConfig config = FlaxConfig.of(c.config);
            Geometry g = config.toGeometry(KvBudget.effectiveWindow(config));
            Map<String, NpyArray> params = new LinkedHashMap<>();
            SyntheticParams.flax(g, config.contrastiveDim(), false, c.ordinal() + 1).forEach((k, v) -> {
                if (!k.contains("_head/") || c.heads.contains(k.substring(0, k.indexOf('/')))) params.put(k, v);
            });
            FlaxCheckpointWriter.write(new FlaxCheckpoint(2, new LinkedHashMap<>(params), c.config, 0L, Map.of()), ckpt);
            checkpoints.put(c, ckpt);

            Path out = dir.resolve(c.name() + ".cact");
            List<String> args = new ArrayList<>(List.of("convert", ckpt.toString(), "--to", out.toString(), "--tokenizer", TOK.toString()));
            if (c.bitsMap != null) args.addAll(List.of("--bits-map", c.bitsMap));
            if (c.group != null) args.addAll(List.of("--group", c.group));
            CliRun run = CliRun.of(args.toArray(String[]::new));
            assertThat(run.exit()).as(c + ": " + run.err()).isZero();
            exports.put(c, out);

            // The tokenizer blob comes from tok512.model, which the golden mini export proves byte for byte.
            Path blob = dir.resolve(c.name() + ".tokenizer");
            try (CactFile f = CactFile.open(out)) {
                Files.write(blob, f.tokenizerBlob().toArray(ValueLayout.JAVA_BYTE));
            }
            expected.put(c, dir.resolve(c.name() + ".expected.cact"));
            jobs.add(job(ckpt, blob, c.bitsMap, c.group == null ? 128 : Integer.parseInt(c.group), expected.get(c)));
        }
        // build_export(tokenizer=None): the same export without its last record and blob.
        tokenizerless = dir.resolve("no-tokenizer.cact");
        try (CactFile f = CactFile.open(exports.get(Case.CTX64_D96))) {
            CactModel m = CactModel.from(f);
            List<CactTensor> ts = m.tensors().subList(0, m.tensors().size() - 1);
            CactWriter.write(new CactModel(m.geometry(), m.codebook(), ts), tokenizerless);
        }
        tokenizerlessExpected = dir.resolve("no-tokenizer.expected.cact");
        jobs.add(job(checkpoints.get(Case.CTX64_D96), null, Case.CTX64_D96.bitsMap, 64, tokenizerlessExpected));
        // build_export(group=32) and (group=16): groups upstream's API takes and its command line never writes.
        for (int group : SMALL_GROUPS) {
            jobs.add(job(checkpoints.get(Case.CTX64_D96), dir.resolve(Case.CTX64_D96.name() + ".tokenizer"), SMALL_GROUP_BITS, group,
                    smallGroup(group)));
        }

        Path jobsFile = dir.resolve("jobs.json");
        Files.writeString(jobsFile, jobs.toString());
        Path script = Path.of(OddGeometryExportTest.class.getResource("/cact/expected_export.py").toURI());
        String python = Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
        String summary = PythonProcess.run(List.of(python, script.toString(), jobsFile.toString()), 600);
        System.out.println("expected_export.py: " + summary.strip());
    }

    private Path smallGroup(int group) {
        return dir.resolve("group" + group + ".expected.cact");
    }

    /**
     * Groups upstream's build_export API takes (any power of two from 8) and its command line never writes
     * (always 128): the reader takes 64 and 128, the groups of the files upstream ships and converts, and
     * refuses the rest when it loads the directory, in one line naming the tensor and the byte, in every command.
     */
    @Test
    void groupsOnlyUpstreamsApiWritesAreRefusedAtLoadInOneLine() throws Exception {
        for (int group : SMALL_GROUPS) {
            String file = smallGroup(group).toString();
            for (String[] command : List.of(new String[] {"inspect", file},
                    new String[] {"reference", file, "--tokens", TOKENS, "--out", dir.resolve("group.npz").toString()},
                    new String[] {"generate", file, "--prompt", "Hello", "--max-new", "3"},
                    new String[] {"parity", file, "--tokens", TOKENS, "--out", dir.resolve("group-parity").toString()})) {
                CliRun run = CliRun.of(command);
                assertThat(run.exit()).as(run.err()).isEqualTo(Main.EXIT_USER_ERROR);
                assertThat(run.err().strip()).doesNotContain("\n").contains(smallGroup(group).getFileName() + ": tensor 0 (embedding) at byte")
                        .contains("unsupported CQ group " + group + " (64 or 128)");
            }
        }
    }

    private static String job(Path ckpt, Path tokenizer, String bits, int group, Path out) {
        return Report.JSON.createObjectNode().put("checkpoint", ckpt.toString()).put("tokenizer", tokenizer == null ? null : tokenizer.toString())
                .put("bits", bits).put("group", group).put("out", out.toString()).toString();
    }

    @ParameterizedTest
    @EnumSource(Case.class)
    void theExportIsWhatUpstreamsExporterWrites(Case c) throws Exception {
        assertSameAsExpected(exports.get(c), expected.get(c), checkpoints.get(c));
    }

    @Test
    void aTokenizerLessExportIsUpstreamsToo() throws Exception {
        assertSameAsExpected(tokenizerless, tokenizerlessExpected, checkpoints.get(Case.CTX64_D96));
    }

    /**
     * Header, codebook and directory byte for byte; every FP16 and RAW blob byte for byte; CQ blobs
     * equal or differing only where the exact oracle certifies a float32 boundary case.
     */
    private static void assertSameAsExpected(Path ours, Path theirs, Path ckpt) throws Exception {
        ModelWeights source = WeightSources.fromCheckpoint(FlaxCheckpointReader.read(ckpt));
        try (CactFile o = CactFile.open(ours); CactFile t = CactFile.open(theirs)) {
            int head = (int) V2Header.recordOffset(t.numTensors());
            assertThat(Arrays.copyOf(Files.readAllBytes(ours), head)).as("header, codebook and directory of " + ours.getFileName())
                    .isEqualTo(Arrays.copyOf(Files.readAllBytes(theirs), head));
            CqAudit audit = new CqAudit();
            for (TensorRecord r : t.tensors()) {
                byte[] x = o.blob(r.index()).toArray(ValueLayout.JAVA_BYTE), y = t.blob(r.index()).toArray(ValueLayout.JAVA_BYTE);
                if (r.dtype() != CactDType.CQ) {
                    assertThat(x).as(r.name()).isEqualTo(y);
                } else if (!Arrays.equals(x, y)) {
                    audit.add(r.name(), t.cqBlob(r.index()), o.cqBlob(r.index()), source.tensors().get(r.name()).asFloats(),
                            t.codebookFor(r.bits(), r.group()));
                }
            }
            assertThat(audit.result().uncertified()).as("CQ differences the oracle does not certify").isEmpty();
            System.out.printf("%s vs expected_export.py: %d certified CQ boundary cases %s%n", ours.getFileName(),
                    audit.result().certified().size(), audit.result().certified());
            assertThat(o.fileBytes()).isEqualTo(t.fileBytes());
        }
    }

    /** Each header field against upstream's arithmetic (export._geometry, _pack_cact, kv_budget_window). */
    @Test
    void headerFieldsAreUpstreamsArithmetic() throws Exception {
        try (CactFile a = CactFile.open(exports.get(Case.CTX64_D96));
                CactFile b = CactFile.open(exports.get(Case.CTX128_D320));
                CactFile c = CactFile.open(exports.get(Case.CTX128_WINDOW100))) {
            Geometry g = Geometry.of(a.geometry());
            // kv_budget_window: per position 1 layer * (2*32 + 2*(32/32)*4) + 1 site * (96 + (96/32)*4) = 72 + 108
            // = 180 bytes; 12058624 // 180 = 66992 -> 66976 (multiple of 32); min(66976, 64) = 64; max(160, 64) = 160.
            assertThat(g.kvWindow()).isEqualTo(160);
            assertThat(g.slidingWindow()).isZero();
            assertThat(g.headDim()).isEqualTo(32);              // attn_dim 96 // 3 heads
            assertThat(g.hadaN()).isEqualTo(128);               // 1 << (96 - 1).bit_length()
            assertThat(g.numEngramTables()).isEqualTo(2);       // 2 orders * max(1, 96 // 256) heads
            assertThat(g.engramSubDim()).isEqualTo(48);         // 96 // 2
            assertThat(g.engramConvDilation()).isEqualTo(3);    // max((2, 3))
            assertThat(g.engramSites()).containsExactly(0);
            assertThat(g.kvBits()).isEqualTo(8);                // int(kv_bits or 8)
            // 1 + 14 per layer + 9 mHC + 4 per site + final_norm + manifest + 3 (one head) + tokenizer
            assertThat(a.numTensors()).isEqualTo(1 + 14 + 9 + 4 + 1 + 1 + 3 + 1);
            assertThat(a.cqGroup()).isEqualTo(64);
            // _bits_for: longest canonical prefix; layer00.k_proj -> attn.k_proj, mhc_phi_* -> mhc
            assertThat(bits(a, "embedding", "layer00.q_proj", "layer00.k_proj", "layer00.out_proj", "mhc_phi_res", "engram0.tables"))
                    .containsExactly(4, 5, 3, 5, 3, 5);
            assertThat(a.tensor("layer00.q_proj").nbytes()).as("96 rows of 128 crumbs + 2 norms").isEqualTo(96 * (128 * 2 / 8 + 2 * 2));

            Geometry h = Geometry.of(b.geometry());
            // 2 * (2*320 + 2*10*4) = 1440 bytes, no sites; 12058624 // 1440 = 8374 -> 8352; min(8352, 128) = 128 -> 160
            assertThat(h.kvWindow()).isEqualTo(160);
            assertThat(h.hadaN()).isEqualTo(512);
            assertThat(h.headDim()).isEqualTo(64);
            assertThat(h.engramSites()).isEmpty();
            assertThat(h.engramSubDim()).isEqualTo(160);        // 320 // (2 * max(1, 320 // 256))
            assertThat(b.numTensors()).isEqualTo(1 + 2 * 14 + 9 + 1 + 1);
            assertThat(b.cqGroup()).isEqualTo(128);
            // weight_bits of the config: embedding=4,mhc=4,default=3 (export.main)
            assertThat(bits(b, "embedding", "layer01.v_proj", "mhc_phi_pre")).containsExactly(4, 3, 4);

            Geometry w = Geometry.of(c.geometry());
            // budget 160 as above (2 * (192 + 24) + 2 * 108 = 648 bytes); effective_kv_window = min(160, 100)
            assertThat(w.kvWindow()).isEqualTo(100);
            assertThat(w.slidingWindow()).isEqualTo(100);
            assertThat(w.engramSites()).containsExactly(1, 0);
            assertThat(c.tensor("contrastive_head.proj").shape()).containsExactly(0, 4 * 96);
            assertThat(c.tensor("contrastive_head.bias").shape()).containsExactly(0);
            assertThat(c.tensor("confidence_head.proj").shape()).containsExactly(1, 8 * 96);
            assertThat(bits(c, "embedding", "layer01.gate_proj", "engram1.value_proj")).containsExactly(4, 4, 4); // export.main: bits 4
        }
    }

    private static List<Integer> bits(CactFile f, String... names) {
        return Arrays.stream(names).map(n -> f.tensor(n).bits()).toList();
    }

    @ParameterizedTest
    @EnumSource(Case.class)
    void inspectReferenceParityAndATorchRoundTripAllPass(Case c) throws Exception {
        String file = exports.get(c).toString();
        CliRun inspect = CliRun.of("inspect", file, "--json");
        assertThat(inspect.exit()).as(inspect.err()).isZero();
        JsonNode notes = Report.JSON.readTree(inspect.out()).path("inspect").path("notes");
        switch (c) {
            case CTX64_D96 -> assertThat(notes.toString()).contains("kv_window 160 >= max_seq_len 64: the window never binds");
            case CTX128_D320 -> assertThat(notes.toString()).contains("kv_window 160 >= max_seq_len 128").contains("no engram sites");
            case CTX128_WINDOW100 -> assertThat(notes.toString()).contains("contrastive_head.proj is empty, shape [0, 384]")
                    .doesNotContain("kv_window");
        }

        Path npz = dir.resolve(c.name() + ".npz");
        CliRun reference = CliRun.of("reference", file, "--tokens", TOKENS, "--out", npz.toString());
        assertThat(reference.exit()).as(reference.err()).isZero();
        assertThat(reference.out()).contains(c == Case.CTX128_WINDOW100 ? "header window: 100" : "header window: none (kv_window 160 >= max_seq_len");

        Path out = dir.resolve(c.name() + "-parity");
        CliRun parity = CliRun.of("parity", file, "--tokens", TOKENS, "--engine", "exact,int8", "--out", out.toString());
        assertThat(parity.exit()).as(parity.out() + parity.err()).isZero();
        JsonNode report = Report.JSON.readTree(out.resolve("parity.json").toFile()).path("parity");
        assertThat(report.path("passed").asBoolean()).isTrue();
        assertThat(report.path("window").asInt()).isZero();
        assertThat(report.path("window_text").asText()).isEqualTo(switch (c) {
            case CTX64_D96 -> "none (kv_window 160 >= max_seq_len 64)";
            case CTX128_D320 -> "none (kv_window 160 >= max_seq_len 128)";
            case CTX128_WINDOW100 -> "none (the 24-token prompt fits the model's kv_window 100)";
        });
        assertThat(Files.readString(out.resolve("parity.md"))).contains("- window: " + report.path("window_text").asText());

        Path pt = dir.resolve(c.name() + ".pt"), back = dir.resolve(c.name() + ".back.cact");
        assertThat(CliRun.of("convert", file, "--to", pt.toString()).exit()).isZero();
        CliRun rebuilt = CliRun.of("convert", pt.toString(), "--to", back.toString(), "--base", file);
        assertThat(rebuilt.exit()).as(rebuilt.err()).isZero();
        assertThat(Files.readAllBytes(back)).isEqualTo(Files.readAllBytes(exports.get(c)));
    }

    /**
     * The engine's kernels take 2- and 4-bit codes; 3-bit matrices (and CTX64's ternary q/v/gate
     * beside its 3-bit k_proj) run on 4-bit copies made at load. Exact mode against the float64
     * reference on the same dequantized weights, as GoldenLogitsTest holds the golden mini.
     */
    @ParameterizedTest
    @EnumSource(value = Case.class, names = {"CTX64_D96", "CTX128_D320"})
    void engineExactModeOnThreeBitMatricesMatchesTheFloat64Reference(Case c) throws Exception {
        Path file = exports.get(c);
        int[] ids = Arrays.stream(TOKENS.split(",")).mapToInt(Integer::parseInt).toArray();
        ModelSource source = ModelSource.load(file, null, dev.needlewb.converter.finite.NonFinitePolicy.REFUSE);
        double[][] want = source.reference().forward(ids, ForwardOptions.DEFAULT);
        double worst = 0;
        try (Engine e = Engine.open(file, EngineOptions.exact(ids.length))) {
            Session s = e.newSession();
            for (int t = 0; t < ids.length; t++) {
                float[] got = s.step(ids[t]);
                double maxAbs = Arrays.stream(want[t]).map(Math::abs).max().orElseThrow();
                for (int i = 0; i < got.length; i++) worst = Math.max(worst, Math.abs(got[i] - want[t][i]) / maxAbs);
            }
        }
        System.out.printf("%s: engine exact vs float64 reference, worst |diff| / max|logit| %.3g%n", c, worst);
        // float32 through one or two layers: the golden mini (6 layers) measures up to 4.1e-7; the
        // gate is GoldenLogitsTest's 2e-6. A wrong nibble or codebook entry moves logits by far more.
        assertThat(worst).isLessThan(2e-6);
    }

    @Test
    void generateAndBenchSayTheHeaderWindowDoesNotBind() throws Exception {
        String file = exports.get(Case.CTX64_D96).toString();
        CliRun generate = CliRun.of("generate", file, "--prompt", "Hello", "--max-new", "3", "--mode", "exact", "--json");
        assertThat(generate.exit()).as(generate.err()).isZero();
        JsonNode g = Report.JSON.readTree(generate.out());
        assertThat(g.path("window").asInt()).isZero();
        assertThat(g.path("window_text").asText()).isEqualTo("none (kv_window 160 >= max_seq_len 64)");

        Path out = dir.resolve("bench");
        CliRun bench = CliRun.of("bench", file, "--prompt", "Hello there", "--new-tokens", "2", "--warmup", "0", "--repetitions", "1", "--out", out.toString());
        assertThat(bench.exit()).as(bench.err()).isZero();
        assertThat(Report.JSON.readTree(out.resolve("bench.json").toFile()).path("bench").path("window_text").asText())
                .isEqualTo("none (kv_window 160 >= max_seq_len 64)");
        assertThat(Files.readString(out.resolve("bench.md"))).contains("Window: none (kv_window 160 >= max_seq_len 64).");

        CliRun windowed = CliRun.of("generate", exports.get(Case.CTX128_WINDOW100).toString(), "--prompt", "Hello", "--max-new", "2",
                "--mode", "exact", "--json");
        assertThat(Report.JSON.readTree(windowed.out()).path("window_text").asText()).isEqualTo("100 (header kv_window)");
    }

    @Test
    void aTokenizerLessExportIsANoteAndRunsOnIds() throws Exception {
        String file = tokenizerless.toString();
        CliRun inspect = CliRun.of("inspect", file);
        assertThat(inspect.exit()).as(inspect.err()).isZero();
        assertThat(inspect.out()).contains("## Notes").contains("no tokenizer: upstream's build_export writes none");
        Path out = dir.resolve("no-tokenizer-parity");
        CliRun parity = CliRun.of("parity", file, "--tokens", TOKENS, "--engine", "exact", "--out", out.toString());
        assertThat(parity.exit()).as(parity.out() + parity.err()).isZero();
        Path pt = dir.resolve("no-tokenizer.pt"), back = dir.resolve("no-tokenizer.back.cact");
        assertThat(CliRun.of("convert", file, "--to", pt.toString()).exit()).isZero();
        assertThat(CliRun.of("convert", pt.toString(), "--to", back.toString(), "--base", file).exit()).isZero();
        assertThat(Files.readAllBytes(back)).isEqualTo(Files.readAllBytes(tokenizerless));

        CliRun text = CliRun.of("tokenize", file, "--text", "hello");
        assertThat(text.exit()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(text.err().strip()).doesNotContain("\n").contains("no-tokenizer.cact: this .cact has no tokenizer");
        CliRun prompt = CliRun.of("parity", file, "--prompt", "hello", "--out", dir.resolve("none").toString());
        assertThat(prompt.exit()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(prompt.err().strip()).doesNotContain("\n").contains("--prompt needs a tokenizer");
    }

    @Test
    void aReallyBrokenOddFileKeepsItsOneLineError() throws Exception {
        Path file = exports.get(Case.CTX128_WINDOW100);
        byte[] bytes = Files.readAllBytes(file);
        int index;
        try (CactFile f = CactFile.open(file)) {
            index = f.tensor("contrastive_head.proj").index();
        }
        // the empty contrastive_head.proj claims 2 bytes for its [0, 384] FP16 shape
        java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong((int) V2Header.recordOffset(index) + 28, 2);
        Path broken = dir.resolve("broken.cact");
        Files.write(broken, bytes);
        CliRun run = CliRun.of("inspect", broken.toString());
        assertThat(run.exit()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(run.err().strip()).doesNotContain("\n")
                .contains("broken.cact: tensor " + index + " (contrastive_head.proj) at byte " + (V2Header.recordOffset(index) + 28))
                .contains("nbytes 2, but FP16[0, 384]");
    }
}
