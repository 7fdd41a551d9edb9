package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The launcher's AOT training run: every command it chains succeeds, and it leaves nothing behind. */
class TrainJvmCommandTest {
    @Test
    void runsTheColdStartCommandsAndDeletesItsModel(@TempDir Path dir) throws Exception {
        CliRun run = CliRun.of("train-jvm", "--tmp", dir.toString());
        assertThat(run.exit()).as(run.err()).isZero();
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void isNotListedAmongTheUsersCommands() {
        CliRun run = CliRun.of("--help");
        assertThat(run.out()).contains("generate").doesNotContain("train-jvm");
    }
}
