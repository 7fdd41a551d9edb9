package dev.needlewb.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.reports.convert.ManifestCheck;
import dev.needlewb.reports.report.InputFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * convert in a child JVM, interrupted: SIGTERM and kill -9 at each phase a test can see from
 * outside (as soon as the JVM runs, while the output is being staged, while the manifest is), a
 * second convert to the same target at the same time, and a file-size limit that makes a write
 * fail. After each: the output and its manifest describe each other (the manifest's SHA-256 is
 * the output's), SIGTERM leaves no temporary file, and the next convert to the target finishes an
 * interrupted commit and removes what a killed run left.
 *
 * <p>A full filesystem needs a filesystem to fill (mounting a small tmpfs needs root, which a
 * test run does not have); {@code ulimit -f} makes write(2) fail the same way (EFBIG instead of
 * ENOSPC; the JVM ignores SIGXFSZ) for any user on Linux.
 */
class ConvertFaultTest {
    private static final long TIMEOUT_SECONDS = 180;

    @TempDir
    Path dir;
    private Path out;

    /** The previous run's pair: float32 output. The runs under test write float16 (other bytes). */
    @BeforeEach
    void previousRun() {
        out = dir.resolve("m.pt");
        CliRun first = CliRun.of("convert", MiniVariants.mini().toString(), "--to", out.toString());
        assertThat(first.exit()).as(first.err()).isZero();
    }

    private String[] convertF16() {
        return new String[] {"convert", MiniVariants.mini().toString(), "--to", out.toString(), "--dtype", "f16"};
    }

    private List<String> names() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private void assertOutputAndManifestAgree() throws IOException {
        ManifestCheck check = ManifestCheck.of(out, InputFile.of("output", out).sha256());
        assertThat(check.status()).as(check.detail()).isEqualTo(ManifestCheck.Status.MATCHES);
    }

    private void assertNoTemporaryFiles() throws IOException {
        assertThat(names()).as("after the run").noneMatch(n -> n.endsWith(".tmp") || n.endsWith(".commit"));
    }

    /** Waits until a file name satisfies {@code seen} or the process ends. */
    private void awaitFile(Process p, Predicate<String> seen) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while (p.isAlive() && System.nanoTime() < until) {
            if (names().stream().anyMatch(seen)) return;
            Thread.sleep(1);
        }
    }

    private enum Moment {
        /** While the JVM starts and reads the input. */
        STARTED,
        /** While the output is written to its temporary file. */
        OUTPUT_STAGED,
        /** While the manifest is written (the output is staged). */
        MANIFEST_STAGED
    }

    private Process startAndWait(Moment moment) throws Exception {
        Process p = CliRun.childJvm(convertF16()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        switch (moment) {
            case STARTED -> Thread.sleep(200);
            case OUTPUT_STAGED -> awaitFile(p, n -> n.startsWith(".m.pt.") && n.endsWith(".tmp") && !n.contains("manifest"));
            case MANIFEST_STAGED -> awaitFile(p, n -> n.startsWith(".m.pt.manifest.") && n.endsWith(".tmp"));
        }
        return p;
    }

    private static int finish(Process p) throws Exception {
        assertThat(p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
        return p.exitValue();
    }

    @Test
    void sigtermAtAnyMomentLeavesAMatchingPairAndNoTemporaryFile() throws Exception {
        for (Moment moment : Moment.values()) {
            Process p = startAndWait(moment);
            p.destroy(); // SIGTERM
            int exit = finish(p);
            // 143: stopped; 0: it had finished (or was committing, which the stop lets complete)
            assertThat(exit).as(moment.name()).isIn(0, 143);
            assertNoTemporaryFiles();
            assertOutputAndManifestAgree();
        }
    }

    @Test
    void killDashNineAtAnyMomentIsRepairedByTheNextConvert() throws Exception {
        for (Moment moment : Moment.values()) {
            Process p = startAndWait(moment);
            p.destroyForcibly(); // SIGKILL: no hook runs
            assertThat(finish(p)).as(moment.name()).isIn(0, 137);
            // only a kill in the middle of the renames leaves a pair that disagrees, and then the record says so
            if (!Files.exists(dir.resolve(".m.pt.commit"))) assertOutputAndManifestAgree();
            CliRun next = CliRun.of(convertF16());
            assertThat(next.exit()).as(next.err()).isZero();
            assertNoTemporaryFiles();
            assertOutputAndManifestAgree();
        }
    }

    @Test
    void twoConvertsToOneTargetNeverMixTheirFiles() throws Exception {
        Process f16 = CliRun.childJvm(convertF16()).start();
        Process f32 = CliRun.childJvm("convert", MiniVariants.mini().toString(), "--to", out.toString()).start();
        String[] said = new String[2];
        int[] exits = new int[2];
        Process[] both = {f16, f32};
        for (int i = 0; i < 2; i++) {
            assertThat(both[i].waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
            said[i] = new String(both[i].getInputStream().readAllBytes());
            exits[i] = both[i].exitValue();
        }
        for (int i = 0; i < 2; i++) {
            assertThat(exits[i]).as(said[i]).isIn(0, 2);
            if (exits[i] == 2) assertThat(said[i]).contains("another process is writing it");
        }
        assertThat(exits).contains(0);
        assertNoTemporaryFiles();
        assertOutputAndManifestAgree();
    }

    /** A write that fails (file size limit) at several points of the output: exit 2 in one line, the previous pair intact. */
    @Test
    void aWriteThatFailsKeepsThePreviousPair() throws Exception {
        byte[] before = Files.readAllBytes(out);
        byte[] manifest = Files.readAllBytes(dir.resolve("m.pt.manifest.json"));
        for (int kib : new int[] {1, 300, 1200}) { // the float16 output has about 1,460 KiB
            List<String> cmd = new ArrayList<>(CliRun.childJvm(convertF16()).command());
            String line = String.join(" ", cmd.stream().map(ConvertFaultTest::quote).toList());
            Process p = new ProcessBuilder("bash", "-c", "ulimit -f " + kib + "; exec " + line).redirectErrorStream(true).start();
            assertThat(p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
            String said = new String(p.getInputStream().readAllBytes());
            assertThat(p.exitValue()).as(said).isEqualTo(2);
            assertThat(said.lines().filter(l -> l.startsWith("needle-wb: "))).singleElement().asString()
                    .startsWith("needle-wb: " + out.toAbsolutePath()).contains("File too large");
            assertThat(Files.readAllBytes(out)).isEqualTo(before);
            assertThat(Files.readAllBytes(dir.resolve("m.pt.manifest.json"))).isEqualTo(manifest);
            assertNoTemporaryFiles();
        }
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
