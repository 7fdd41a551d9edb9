package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.golden.Golden;
import dev.needlewb.reports.report.Report;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConvertCommandTest {
    private static final String CKPT = Golden.mini("mini.ckpt.pkl").toString();
    private static final String CACT = Golden.mini("mini.cact").toString();
    private static final String TOK = Golden.mini("tok512.model").toString();

    private record Run(int code, String out, String err) {}

    private static Run run(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(code, out.toString(), err.toString());
    }

    private static long files(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.count();
        }
    }

    @Test
    void checkpointToCactWritesUpstreamsBytesAndAManifest(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("mini.cact");
        Run r = run("convert", CKPT, "--to", out.toString(), "--tokenizer", TOK);
        assertThat(r.code()).as(r.err()).isZero();
        String sha;
        try (CactFile golden = CactFile.open(Path.of(CACT))) {
            sha = golden.sha256();
        }
        JsonNode m = Report.JSON.readTree(tmp.resolve("mini.cact.manifest.json").toFile());
        assertThat(m.path("conversion").path("output").path("sha256").asText()).isEqualTo(sha);
        assertThat(m.path("conversion").path("tensors")).hasSize(111);
        assertThat(m.path("inputs").get(0).path("sha256").asText()).hasSize(64);
        JsonNode q = m.path("conversion").path("tensors").get(2);
        assertThat(q.path("name").asText()).isEqualTo("layer00.q_proj");
        assertThat(q.path("quantization").asText()).isEqualTo("cq2/128");
        assertThat(q.path("transform").asText()).isEqualTo("LAYER_SLICE_TRANSPOSE");
        assertThat(Files.readString(tmp.resolve("mini.cact.manifest.md"))).contains("Provenance");
    }

    @Test
    void cactRoundTripThroughSafetensorsWithBaseIsIdenticalAndListsNothing(@TempDir Path tmp) throws Exception {
        Path st = tmp.resolve("mini.safetensors");
        assertThat(run("convert", CACT, "--to", st.toString()).code()).isZero();
        Path back = tmp.resolve("back.cact");
        Run r = run("convert", st.toString(), "--to", back.toString(), "--base", CACT);
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("0 re-encoded");
        assertThat(Files.readAllBytes(back)).isEqualTo(Files.readAllBytes(Path.of(CACT)));
    }

    @Test
    void inspectTellsWhetherTheManifestBesideAFileDescribesIt(@TempDir Path tmp) throws Exception {
        Path st = tmp.resolve("mini.safetensors");
        assertThat(run("convert", CACT, "--to", st.toString()).code()).isZero();
        Path back = tmp.resolve("back.cact");
        assertThat(run("convert", st.toString(), "--to", back.toString(), "--base", CACT).code()).isZero();
        Run matches = run("inspect", back.toString(), "--json");
        assertThat(matches.code()).as(matches.err()).isZero();
        assertThat(Report.JSON.readTree(matches.out()).at("/inspect/manifest/status").asText()).isEqualTo("matches");

        // another file put in its place (here with one FP16 value changed): the manifest describes the old one
        MiniVariants.withTensor(back, "final_norm", bytes -> {
            bytes[0] ^= 1;
            return bytes;
        });
        Run stale = run("inspect", back.toString());
        assertThat(stale.code()).isEqualTo(1);
        assertThat(stale.out()).contains("- manifest: `back.cact.manifest.json` describes another file: it records sha256 ");
        Run none = run("inspect", CACT, "--json");
        assertThat(Report.JSON.readTree(none.out()).at("/inspect/manifest/status").asText()).isEqualTo("none");
    }

    @Test
    void dryRunPrintsThePlanAndWritesNothing(@TempDir Path tmp) throws Exception {
        Run r = run("convert", CKPT, "--to", tmp.resolve("x.cact").toString(), "--tokenizer", TOK, "--dry-run");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("dry run").contains("| layer00.q_proj |").contains("cq2/128").contains("output bytes: " + Files.size(Path.of(CACT)));
        assertThat(files(tmp)).isZero();
    }

    @Test
    void userErrorsAreOneLineWithExitTwoAndWriteNothing(@TempDir Path tmp) throws Exception {
        Run same = run("convert", CACT, "--to", CACT);
        assertThat(same.code()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(same.err().strip()).doesNotContain("\n").startsWith("needle-wb: ");

        Path st = tmp.resolve("a.safetensors");
        assertThat(run("convert", CACT, "--to", st.toString()).code()).isZero();
        Run overwrite = run("convert", st.toString(), "--to", CACT, "--base", CACT);
        assertThat(overwrite.code()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(overwrite.err().strip()).doesNotContain("\n").contains("refusing to overwrite the input");

        Run noTokenizer = run("convert", CKPT, "--to", tmp.resolve("b.cact").toString());
        assertThat(noTokenizer.code()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(noTokenizer.err().strip()).doesNotContain("\n").contains("--tokenizer");

        Run badBits = run("convert", CKPT, "--to", tmp.resolve("c.cact").toString(), "--tokenizer", TOK, "--bits-map", "embedding=4");
        assertThat(badBits.code()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(badBits.err().strip()).doesNotContain("\n").contains("needs a default");

        Run unknown = run("convert", CACT, "--to", tmp.resolve("d.onnx").toString());
        assertThat(unknown.code()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(unknown.err().strip()).doesNotContain("\n").contains("unknown format");
        // a.safetensors, its manifest .json/.md and its writer's lock; the refused runs took no lock
        try (Stream<Path> names = Files.list(tmp)) {
            assertThat(names.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder(
                    "a.safetensors", "a.safetensors.manifest.json", "a.safetensors.manifest.md", ".a.safetensors.lock");
        }
    }

    @Test
    void namesPrintsTheTableCompactAndAsJson() throws Exception {
        Run md = run("names", "--geometry", "needle2", "--compact");
        assertThat(md.code()).as(md.err()).isZero();
        assertThat(md.out()).contains("| layerNN.q_proj | stack/layers/block/self_attn/q_proj/kernel[N] | layers.N.attn.q_proj.weight | [512, 512] | [27, 512, 512] | LAYER_SLICE_TRANSPOSE | cq2/128 |")
                .contains("| mhc_phi_res | stack/mhc_phi_res | mhc.phi_res.weight | [432, 2048] | [27, 2048, 16] | PHI_RESHAPE | cq4/128 |")
                .doesNotContain("layer01.");
        Run json = run("names", "--geometry", CACT, "--json");
        assertThat(json.code()).as(json.err()).isZero();
        JsonNode rows = Report.JSON.readTree(json.out()).path("rows");
        assertThat(rows).hasSize(111);
        assertThat(rows.get(0).path("torch_key").asText()).isEqualTo("embedding.weight");
        assertThat(rows.get(0).path("storage").asText()).isEqualTo("cq4/128");
    }
}
