package dev.needlewb.golden;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a python command for an interop test: its standard output, or a test failure with its error output. */
public final class PythonProcess {
    private PythonProcess() {}

    public static String run(List<String> command, long timeoutSeconds) {
        try {
            Path errFile = Files.createTempFile("python", ".err");
            try {
                Process p = new ProcessBuilder(command).redirectError(errFile.toFile()).start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    return fail("python timed out");
                }
                if (p.exitValue() != 0) return fail("python exited " + p.exitValue() + ": " + out + Files.readString(errFile));
                return out;
            } finally {
                Files.deleteIfExists(errFile);
            }
        } catch (IOException e) {
            return fail("cannot run " + command.getFirst() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fail("interrupted");
        }
    }
}
