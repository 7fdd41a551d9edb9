package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Inputs parity refuses: one line on stderr, exit 2, and no report files. */
class ParityBadInputTest {

    private static void refused(CliRun run, Path out, String... message) {
        assertThat(run.exit()).as(run.out()).isEqualTo(2);
        assertThat(run.err().strip()).doesNotContain("\n").contains(message);
        assertThat(out).doesNotExist();
    }

    @Test
    void aPromptLongerThanMaxSeqLen(@TempDir Path dir) {
        Path out = dir.resolve("r");
        // mini's max_seq_len is 256.
        refused(CliRun.of("parity", MiniVariants.mini().toString(), "--tokens", MiniVariants.tokens(257), "--window", "32",
                "--sinks", "1", "--out", out.toString()), out, "the prompt has 257 tokens, more than the model's max_seq_len 256");
    }

    @Test
    void aPromptLongerThanTheModelsKvWindowNeedsAnExplicitWindow(@TempDir Path dir) throws Exception {
        Path windowed = MiniVariants.withGeometry(dir.resolve("w160.cact"), g -> MiniVariants.kvWindow(g, 160));
        Path out = dir.resolve("r");
        refused(CliRun.of("parity", windowed.toString(), "--tokens", MiniVariants.tokens(200), "--out", out.toString()), out,
                "the prompt has 200 tokens, more than the model's kv_window 160: give --window 160 --sinks K");
    }

    @Test
    void aPromptLongerThanTheWindowNeedsSinks(@TempDir Path dir) {
        Path out = dir.resolve("r");
        refused(CliRun.of("parity", MiniVariants.mini().toString(), "--tokens", MiniVariants.tokens(40), "--window", "16",
                "--out", out.toString()), out, "the prompt has 40 tokens, more than --window 16 with no --sinks", "--sinks 1");
    }

    @Test
    void anUnwritableOutputFolderIsRefusedBeforeTheComparisonRuns(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("a-file"), "not a folder");
        Path out = file.resolve("r");
        // The geometry mismatch would be found by reading --against: the folder is refused first.
        Path other = MiniVariants.withGeometry(dir.resolve("theta.cact"), g -> MiniVariants.ropeTheta(g, 10000f));
        refused(CliRun.of("parity", MiniVariants.mini().toString(), "--against", other.toString(), "--tokens", "2,3",
                "--out", out.toString()), out, out + ": cannot create the output folder", "is not a folder");
    }

    /** The default jar carries no libtorch: asking it for the torch engine says which jar has it. */
    @Test
    void theTorchEngineOutsideItsJarSaysWhereItIs(@TempDir Path dir) {
        Path out = dir.resolve("out");
        refused(CliRun.of("parity", MiniVariants.mini().toString(), "--tokens", "2,3", "--engine", "exact,torch", "--out", out.toString()),
                out, "the torch engine is not in this jar", "needle-wb-torch.jar");
        CliRun generate = CliRun.of("generate", MiniVariants.mini().toString(), "--prompt", "x", "--prefill", "torch");
        assertThat(generate.exit()).isEqualTo(2);
        assertThat(generate.err().strip()).doesNotContain("\n").contains("needle-wb-torch.jar");
    }
}
