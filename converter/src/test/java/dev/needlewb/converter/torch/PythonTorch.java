package dev.needlewb.converter.torch;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's {@code /usr/bin/python3} with torch and numpy (apt packages python3-torch and
 * python3-numpy), for tests that check our files against real PyTorch. A missing torch fails the
 * test with the package to install: these checks are the point, they must not be skipped.
 */
public final class PythonTorch {
    public static final String PYTHON = "/usr/bin/python3";
    private static Boolean available;

    private PythonTorch() {}

    private static synchronized void requireTorch() {
        if (available == null) {
            try {
                Process p = new ProcessBuilder(PYTHON, "-c", "import torch, numpy").redirectErrorStream(true).start();
                p.getInputStream().readAllBytes();
                available = p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0;
            } catch (IOException e) {
                available = false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                available = false;
            }
        }
        if (!available) fail(PYTHON + " cannot import torch and numpy: apt-get install -y python3-torch python3-numpy");
    }

    /** Runs {@code script} with {@code sys.argv[1:] = args}; returns stdout, fails the test on a non-zero exit. */
    public static String run(String script, String... args) {
        List<String> cmd = new ArrayList<>(List.of(PYTHON, "-c", script));
        cmd.addAll(List.of(args));
        return exec(cmd);
    }

    /** Runs a script file with arguments; returns stdout, fails the test on a non-zero exit. */
    public static String runFile(Path script, String... args) {
        List<String> cmd = new ArrayList<>(List.of(PYTHON, script.toString()));
        cmd.addAll(List.of(args));
        return exec(cmd);
    }

    private static String exec(List<String> cmd) {
        requireTorch();
        return dev.needlewb.golden.PythonProcess.run(cmd, 600);
    }
}
