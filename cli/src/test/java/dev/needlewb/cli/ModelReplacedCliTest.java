package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.converter.cact.CactWriter;
import dev.needlewb.converter.synth.SyntheticCact;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The model file truncated while a command runs on it, in a child JVM (a SIGBUS there kills the
 * process with exit 134 and an hs_err file, which an in-process test cannot observe): generate
 * finishes on the bytes it loaded; bench, which loads the file again for every run, stops at the
 * next load with one line and exit 2. The model is a synthetic one of the released geometry, so a
 * run lasts long enough to truncate it midway.
 */
class ModelReplacedCliTest {
    private static final long TIMEOUT_SECONDS = 300;

    @TempDir
    static Path dir;
    private static Path released;

    @BeforeAll
    static void model() throws Exception {
        released = dir.resolve("released.cact");
        CactWriter.write(SyntheticCact.released(3, List.of()), released);
    }

    private static void truncate(Path file) throws Exception {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(0);
        }
    }

    /** Truncates {@code model} as soon as what {@code p} printed satisfies {@code ready}; returns all it printed. */
    private static String truncateOnceSaid(Process p, Path model, Predicate<String> ready) throws Exception {
        InputStream out = p.getInputStream();
        StringBuilder said = new StringBuilder();
        for (int c; !ready.test(said.toString()) && (c = out.read()) >= 0; ) said.append((char) c);
        truncate(model);
        return said.append(new String(out.readAllBytes())).toString();
    }

    private static List<String> crashLogs(Path cwd) throws Exception {
        try (Stream<Path> s = Files.list(cwd)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("hs_err")).toList();
        }
    }

    @Test
    void generateFinishesOnWhatItLoadedWhenTheFileIsTruncated() throws Exception {
        Path model = Files.copy(released, dir.resolve("generate.cact"));
        Path cwd = Files.createDirectories(dir.resolve("generate-cwd"));
        Process p = CliRun.childJvm("generate", model.toString(), "--prompt", "What is the weather in Paris?", "--max-new", "300",
                "--threads", "2").directory(cwd.toFile()).redirectErrorStream(false).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        // the first streamed text: the model is loaded and decoding
        String said = truncateOnceSaid(p, model, s -> s.length() >= 20);
        assertThat(p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(said).isZero();
        assertThat(crashLogs(cwd)).isEmpty();
    }

    @Test
    void benchStopsAtTheNextLoadInOneLine() throws Exception {
        Path model = Files.copy(released, dir.resolve("bench.cact"));
        Path cwd = Files.createDirectories(dir.resolve("bench-cwd"));
        Process p = CliRun.childJvm("bench", model.toString(), "--new-tokens", "8", "--warmup", "0", "--repetitions", "50",
                "--out", cwd.resolve("report").toString()).directory(cwd.toFile()).start();
        // "run 1: ..." on stderr (merged): the first run is done, the next loads the file again
        String said = truncateOnceSaid(p, model, s -> s.contains("run 1:"));
        assertThat(p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(said).isEqualTo(2);
        assertThat(said.lines().filter(l -> l.startsWith("needle-wb: "))).singleElement().asString()
                .isEqualTo("needle-wb: " + model + ": at byte 0: file is 0 bytes, shorter than the 4-byte .cact tag (truncated?)");
        assertThat(cwd.resolve("report")).doesNotExist();
        assertThat(crashLogs(cwd)).isEmpty();
    }
}
