package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.v2.LegacyCact;
import dev.needlewb.golden.Golden;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A legacy-header (0x05E12A82) file from the command line: upgraded by convert with --config, refused in one line elsewhere. */
class LegacyHeaderCliTest {
    @Test
    void convertWithConfigUpgradesItAndOtherCommandsSayHow(@TempDir Path dir) throws Exception {
        Path mini = Golden.mini("mini.cact");
        Path legacy = Files.write(dir.resolve("legacy.cact"), LegacyCact.of(mini));
        Path out = dir.resolve("upgraded.cact");
        CliRun upgrade = CliRun.of("convert", legacy.toString(), "--to", out.toString(), "--config", Golden.mini("mini.ckpt.pkl").toString());
        assertThat(upgrade.exit()).as(upgrade.err()).isZero();
        assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(mini));
        for (List<String> args : List.of(List.of("inspect", legacy.toString()),
                List.of("generate", legacy.toString(), "--prompt", "hi", "--max-new", "2"),
                List.of("convert", legacy.toString(), "--to", dir.resolve("x.safetensors").toString()))) {
            CliRun run = CliRun.of(args.toArray(String[]::new));
            assertThat(run.exit()).as(args + ": " + run.err()).isEqualTo(Main.EXIT_USER_ERROR);
            assertThat(run.err().strip()).as(args.getFirst()).doesNotContain("\n")
                    .startsWith("needle-wb: " + legacy + ": at byte 0: tag 0x05E12A82 marks Needle 2's legacy header").contains("--config");
        }
        assertThat(dir.resolve("x.safetensors")).doesNotExist();
    }
}
