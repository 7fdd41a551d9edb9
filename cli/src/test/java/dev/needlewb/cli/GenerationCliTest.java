package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.golden.Golden;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A .cact of a generation the workbench does not read yet (upstream's own Needle 3 file) is refused
 * by every command that opens one, in one line naming the file, byte 0 and the generation, exit 2,
 * and nothing is written.
 */
class GenerationCliTest {
    private static final String REFUSAL = "at byte 0: tag 0x05E12A84 marks a Needle 3 file: Needle 3 is not supported yet"
            + " (this version reads Needle 2)";

    @Test
    void everyCommandOpeningANeedle3FileNamesTheGeneration(@TempDir Path dir) throws Exception {
        Path v3 = dir.resolve("mini3.cact");
        Files.copy(Golden.v3mini("mini3.cact"), v3);
        Path out = dir.resolve("out");
        List<List<String>> commands = List.of(
                List.of("inspect", v3.toString()),
                List.of("names", "--geometry", v3.toString()),
                List.of("generate", v3.toString(), "--prompt", "hi", "--max-new", "2"),
                List.of("reference", v3.toString(), "--tokens", "2,5,6", "--out", out.resolve("ref.npz").toString()),
                List.of("parity", v3.toString(), "--tokens", "2,5,6", "--out", out.toString()),
                List.of("convert", v3.toString(), "--to", out.resolve("mini3.safetensors").toString()));
        for (List<String> args : commands) {
            CliRun run = CliRun.of(args.toArray(String[]::new));
            assertThat(run.exit()).as(args + ": " + run.err()).isEqualTo(Main.EXIT_USER_ERROR);
            assertThat(run.err().strip()).as(args.getFirst()).doesNotContain("\n").isEqualTo("needle-wb: " + v3 + ": " + REFUSAL);
        }
        assertThat(out).doesNotExist();
    }

    @Test
    void upstreamsNeedle3CheckpointIsRefusedByItsConfigNotByAMismatchedShape(@TempDir Path dir) throws Exception {
        Path ckpt = Golden.v3mini("mini3.ckpt.pkl");
        Path out = dir.resolve("out");
        List<List<String>> commands = List.of(
                List.of("names", "--geometry", ckpt.toString()),
                List.of("convert", ckpt.toString(), "--to", out.resolve("mini3.safetensors").toString()));
        for (List<String> args : commands) {
            CliRun run = CliRun.of(args.toArray(String[]::new));
            assertThat(run.exit()).as(args + ": " + run.err()).isEqualTo(Main.EXIT_USER_ERROR);
            assertThat(run.err().strip()).as(args.getFirst()).doesNotContain("\n").isEqualTo("needle-wb: " + ckpt
                    + ": the config has qk_head_dim, which marks a Needle 3 checkpoint: Needle 3 is not supported yet (this reader reads Needle 2's)");
        }
        assertThat(out).doesNotExist();
    }
}
