package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.TensorRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A NaN in an FP16 tensor and an infinity in a CQ matrix's group norms (the two kinds of stored
 * float mini has): {@code inspect} lists them with the first offset and exits 1; every command
 * that computes with the weights or writes them refuses the file in one line naming the file,
 * the tensor and the byte (exit 2, nothing written); {@code --allow-nonfinite} runs them.
 */
class NonFiniteCliTest {
    @TempDir
    static Path dir;
    private static Path fp16;
    private static Path norms;
    /** final_norm's first float and layer03.v_proj's first group norm in mini. */
    private static long fp16Offset;
    private static long normOffset;

    @BeforeAll
    static void poison() throws Exception {
        fp16 = MiniVariants.withTensor(dir.resolve("nan-final-norm.cact"), "final_norm", bytes -> {
            bytes[0] = 0x00;
            bytes[1] = 0x7E; // float16 NaN
            return bytes;
        });
        int codeBytes = 64 * 128 * 2 / 8; // v_proj [64, 128] at 2 bits: codes, then one norm per row
        norms = MiniVariants.withTensor(dir.resolve("inf-norm.cact"), "layer03.v_proj", bytes -> {
            bytes[codeBytes] = 0x00;
            bytes[codeBytes + 1] = 0x7C; // float16 +inf
            return bytes;
        });
        try (CactFile f = CactFile.open(MiniVariants.mini())) {
            fp16Offset = f.tensor("final_norm").offset();
            TensorRecord v = f.tensor("layer03.v_proj");
            normOffset = v.offset() + codeBytes;
        }
    }

    static Stream<Arguments> files() {
        return Stream.of(Arguments.of("final_norm", "value", "NaN"), Arguments.of("layer03.v_proj", "CQ group norm", "Infinity"));
    }

    private static Path file(String tensor) {
        return tensor.equals("final_norm") ? fp16 : norms;
    }

    private static long offset(String tensor) {
        return tensor.equals("final_norm") ? fp16Offset : normOffset;
    }

    @ParameterizedTest
    @MethodSource("files")
    void inspectListsTheTensorAndExitsOne(String tensor, String part, String value) throws Exception {
        CliRun run = CliRun.of("inspect", file(tensor).toString(), "--json");
        assertThat(run.exit()).as(run.err()).isEqualTo(1);
        JsonNode bad = new ObjectMapper().readTree(run.out()).at("/inspect/non_finite");
        assertThat(bad).hasSize(1);
        assertThat(bad.get(0).get("name").asText()).isEqualTo(tensor);
        assertThat(bad.get(0).get("part").asText()).isEqualTo(part);
        assertThat(bad.get(0).get("count").asLong()).isEqualTo(1);
        assertThat(bad.get(0).get("first_offset").asLong()).isEqualTo(offset(tensor));
        assertThat(bad.get(0).get("first_value").asText()).isEqualTo(value);
        CliRun md = CliRun.of("inspect", file(tensor).toString());
        assertThat(md.out()).contains("**Not finite:** 1 tensor holds NaN or infinity", "## Non-finite values", "| " + tensor + " |");
    }

    /** Each command that reads weights, with the options it needs to run on mini; {@code {OUT}} is a fresh path. */
    private static List<String[]> commands(Path model, Path out) throws Exception {
        String m = model.toString(), o = out.toString();
        List<String[]> all = new ArrayList<>();
        all.add(new String[] {"generate", m, "--prompt", "hello", "--max-new", "2"});
        all.add(new String[] {"bench", m, "--new-tokens", "1", "--warmup", "0", "--repetitions", "1", "--out", o});
        all.add(new String[] {"reference", m, "--tokens", "2,5,9", "--out", out.resolve("r.npz").toString()});
        all.add(new String[] {"parity", m, "--tokens", "2,5,9", "--engine", "exact", "--out", o});
        all.add(new String[] {"convert", m, "--to", out.resolve("m.safetensors").toString()});
        all.add(new String[] {"eval", "toolcalls", m, "--cases", ToolCallsCliTest.miniCases().toString(), "--engine", "exact,batch",
            "--limit", "1", "--out", o});
        all.add(new String[] {"study", "idempotence", m, "--tensor", "layer03.v_proj", "--rounds", "1", "--out", o});
        return all;
    }

    @ParameterizedTest
    @MethodSource("files")
    void everyCommandThatComputesWithTheWeightsRefusesThemInOneLine(String tensor, String part, String value) throws Exception {
        int k = 0;
        for (String[] args : commands(file(tensor), dir.resolve(tensor + "-refused"))) {
            CliRun run = CliRun.of(args);
            assertThat(run.exit()).as(String.join(" ", args) + "\n" + run.err()).isEqualTo(2);
            assertThat(run.err().strip()).doesNotContain("\n").isEqualTo("needle-wb: " + file(tensor) + ": tensor "
                    + index(tensor) + " (" + tensor + ") at byte " + offset(tensor) + ": 1 " + part + " is not finite (first: " + value
                    + " at " + (part.equals("value") ? "element" : "norm") + " 0); --allow-nonfinite reads it anyway");
            k++;
        }
        assertThat(dir.resolve(tensor + "-refused")).doesNotExist();
        assertThat(k).isEqualTo(7);
    }

    /**
     * With the override the commands that compute numbers run to the end on the broken weights.
     * Not here: {@code eval toolcalls}, whose constrained decoder cannot pick a token from NaN
     * logits, and {@code study idempotence}, which cannot re-quantize a NaN weight; both stop
     * with their own message.
     */
    @ParameterizedTest
    @MethodSource("files")
    void allowNonFiniteRunsThem(String tensor, String part, String value) throws Exception {
        for (String[] args : commands(file(tensor), dir.resolve(tensor + "-allowed"))) {
            if (args[0].equals("eval") || args[0].equals("study")) continue;
            String[] allowed = Stream.concat(Stream.of(args), Stream.of("--allow-nonfinite")).toArray(String[]::new);
            CliRun run = CliRun.of(allowed);
            // parity judges the (broken) numbers: 0 or 1, never a refusal
            assertThat(run.exit()).as(String.join(" ", allowed) + "\n" + run.err()).isIn(0, 1);
        }
        assertThat(Files.exists(dir.resolve(tensor + "-allowed").resolve("m.safetensors"))).isTrue();
    }

    private static int index(String tensor) throws Exception {
        try (CactFile f = CactFile.open(MiniVariants.mini())) {
            return f.tensor(tensor).index();
        }
    }
}
