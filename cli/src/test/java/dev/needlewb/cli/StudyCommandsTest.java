package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.v2.V2Header;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.golden.Golden;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code needle-wb study idempotence} and {@code needle-wb codebook} end to end on the golden mini model. */
class StudyCommandsTest {
    private static final Path MINI = Golden.mini("mini.cact");

    private record Run(int exit, String out, String err) {}

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.run(args, new PrintWriter(out), new PrintWriter(err));
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void idempotenceOnMiniCactWritesJsonMarkdownAndHtmlWithCharts(@TempDir Path dir) throws Exception {
        Run r = run("study", "idempotence", MINI.toString(), "--rounds", "3", "--out", dir.toString());
        assertThat(r.err()).isEmpty();
        assertThat(r.exit()).isZero();
        JsonNode json = new ObjectMapper().readTree(dir.resolve("idempotence.json").toFile());
        assertThat(json.get("schema_version").asInt()).isPositive();
        JsonNode body = json.get("idempotence");
        assertThat(body.get("input_kind").asText()).isEqualTo("cact");
        assertThat(body.get("header_codebook_matches_quantizer").asBoolean()).isTrue();
        JsonNode tensors = body.get("tensors");
        assertThat(tensors.size()).isPositive();
        assertThat(tensors.size()).isEqualTo(body.get("summary").get("tensors").asInt());
        for (JsonNode t : tensors) {
            JsonNode rounds = t.get("rounds");
            assertThat(rounds.size()).isBetween(1, 3);
            assertThat(rounds.get(0).get("round").asInt()).isEqualTo(1);
        }
        assertThat(Files.readString(dir.resolve("idempotence.md"))).contains("| tensor |", "embedding");
        String html = Files.readString(dir.resolve("idempotence.html"));
        assertThat(html).contains("<img class=\"chart\"", "data:image/png;base64,").doesNotContain("http://", "https://");
    }

    @Test
    void oneTensorOfTheCheckpoint(@TempDir Path dir) throws Exception {
        Run r = run("study", "idempotence", Golden.mini("mini.ckpt.pkl").toString(), "--tensor", "embedding",
                "--rounds", "2", "--out", dir.toString());
        assertThat(r.err()).isEmpty();
        assertThat(r.exit()).isZero();
        JsonNode body = new ObjectMapper().readTree(dir.resolve("idempotence.json").toFile()).get("idempotence");
        assertThat(body.get("input_kind").asText()).isEqualTo("checkpoint");
        JsonNode t = body.get("tensors").get(0);
        assertThat(t.get("name").asText()).isEqualTo("embedding");
        // mini's weight_bits is embedding=4,mhc=4,default=2.
        assertThat(t.get("record_bits").asInt()).isEqualTo(4);
        assertThat(t.get("input_max_abs_error").asDouble()).isPositive();
    }

    @Test
    void severalNamedTensorsInTheOrderGiven(@TempDir Path dir) throws Exception {
        Run r = run("study", "idempotence", MINI.toString(), "--tensor", "layer01.q_proj,embedding", "--tensor", "layer01.q_proj",
                "--rounds", "2", "--out", dir.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode tensors = new ObjectMapper().readTree(dir.resolve("idempotence.json").toFile()).at("/idempotence/tensors");
        assertThat(tensors).extracting(t -> t.get("name").asText()).containsExactly("layer01.q_proj", "embedding");
    }

    @Test
    void unknownTensorAndBadInputAreOneLineUserErrors(@TempDir Path dir) throws Exception {
        Run unknown = run("study", "idempotence", MINI.toString(), "--tensor", "no.such", "--out", dir.toString());
        assertThat(unknown.exit()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(unknown.err().lines()).hasSize(1).first().asString().contains("no.such");

        Path junk = dir.resolve("junk.cact");
        Files.write(junk, new byte[] {1, 2, 3, 4, 5});
        Run bad = run("study", "idempotence", junk.toString(), "--out", dir.resolve("o").toString());
        assertThat(bad.exit()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(bad.err().lines()).hasSize(1);
        assertThat(dir.resolve("o")).doesNotExist();
    }

    @Test
    void codebookPrintsEntriesAndCheckPassesOnMini() throws Exception {
        Run r = run("codebook", "--bits", "2", "--group", "128", "--check", MINI.toString());
        assertThat(r.err()).isEmpty();
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("equals it bit for bit");
        // Each printed entry (decimal and hex) is upstream's stored float32, read independently of the command.
        float[] header;
        try (CactFile cact = CactFile.open(MINI)) {
            header = cact.codebook();
        }
        List<String> rows = r.out().lines().filter(l -> l.matches("\\s+\\d+\\s.*")).toList();
        assertThat(rows).hasSize(4);
        for (int k = 0; k < 4; k++) {
            String[] cols = rows.get(k).strip().split("\\s+");
            assertThat(Float.floatToRawIntBits(Float.parseFloat(cols[2]))).isEqualTo(Float.floatToRawIntBits(header[k]));
            assertThat(cols[3]).isEqualTo(String.format("0x%08x", Float.floatToRawIntBits(header[k])));
        }
    }

    @Test
    void codebookJsonHasEveryEntryWithItsBits() throws Exception {
        Run r = run("codebook", "--bits", "4", "--json");
        assertThat(r.exit()).isZero();
        JsonNode body = new ObjectMapper().readTree(r.out()).get("codebook");
        assertThat(body.get("entries").size()).isEqualTo(16);
        for (JsonNode e : body.get("entries")) {
            float value = Float.parseFloat(e.get("value").asText());
            assertThat(String.format("0x%08x", Float.floatToRawIntBits(value))).isEqualTo(e.get("bits").asText());
        }
    }

    @Test
    void codebookCheckFailsOnAnAlteredHeaderAndNamesTheEntry(@TempDir Path dir) throws Exception {
        byte[] bytes = Files.readAllBytes(MINI);
        // The header codebook is cb2[4] | cb3[8] | cb4[16] floats; bump one ulp of cb4 entry 5.
        int at = V2Header.HEADER_BYTES + 4 * (4 + 8 + 5);
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(at, b.getInt(at) + 1);
        Path altered = dir.resolve("altered.cact");
        Files.write(altered, bytes);

        Run four = run("codebook", "--bits", "4", "--check", altered.toString());
        assertThat(four.exit()).isEqualTo(CodebookCommand.EXIT_DIFFERENT);
        assertThat(four.out()).contains("differs in 1 of 16", "entry 5:");
        Run two = run("codebook", "--bits", "2", "--check", altered.toString());
        assertThat(two.exit()).isZero();
    }

    @Test
    void codebookUserErrorsExitTwoWithOneLine() {
        Run badBits = run("codebook", "--bits", "7");
        assertThat(badBits.exit()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(badBits.err().lines()).hasSize(1);
        Run missing = run("codebook", "--bits", "2", "--check", "/no/such/file.cact");
        assertThat(missing.exit()).isEqualTo(Main.EXIT_USER_ERROR);
        assertThat(missing.err().lines()).hasSize(1);
    }
}
