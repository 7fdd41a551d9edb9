package dev.needlewb.converter.flax;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A python3 with numpy, for tests that check our pickles against the real thing. Tries
 * {@code /usr/bin/python3} (Debian's, with the apt package python3-numpy), then {@code python3}
 * on the PATH. If neither has numpy the calling test fails, naming the package to install.
 * Scripts get a prelude that lets numpy 1.x read numpy 2 pickles ({@code numpy._core} names).
 */
final class PythonNumpy {
    private static final String PRELUDE = """
            import sys, pickle, numpy as np
            if not hasattr(np, '_core'):
                import numpy.core.multiarray, numpy.core.numeric
                sys.modules['numpy._core'] = np.core
                sys.modules['numpy._core.multiarray'] = np.core.multiarray
                sys.modules['numpy._core.numeric'] = np.core.numeric
            """;
    private static String interpreter;

    private PythonNumpy() {}

    static synchronized String interpreter() {
        if (interpreter != null) return interpreter;
        for (String candidate : new String[] {"/usr/bin/python3", "python3"}) {
            try {
                Process p = new ProcessBuilder(candidate, "-c", "import numpy").redirectErrorStream(true).start();
                p.getInputStream().readAllBytes();
                if (p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0) return interpreter = candidate;
            } catch (IOException e) {
                // not installed: try the next one
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return fail("this test needs python3 with numpy: apt-get install -y python3-numpy");
    }

    /** Runs the script (after the prelude) with {@code sys.argv[1:] = args}; returns stdout, fails on a non-zero exit. */
    static String run(String script, String... args) {
        List<String> cmd = new ArrayList<>(List.of(interpreter(), "-c", PRELUDE + script));
        cmd.addAll(List.of(args));
        try {
            Path errFile = Files.createTempFile("python", ".err");
            try {
                Process p = new ProcessBuilder(cmd).redirectError(errFile.toFile()).start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!p.waitFor(300, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    return fail("python timed out");
                }
                if (p.exitValue() != 0) return fail("python failed: " + Files.readString(errFile));
                return out;
            } finally {
                Files.deleteIfExists(errFile);
            }
        } catch (IOException e) {
            return fail("cannot run python: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fail("interrupted");
        }
    }
}
