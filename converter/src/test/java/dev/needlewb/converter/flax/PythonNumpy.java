package dev.needlewb.converter.flax;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
    private static List<String> interpreters;

    private PythonNumpy() {}

    /**
     * Every candidate interpreter that imports numpy, keyed by numpy version so that two
     * interpreters sharing one numpy count once (Debian's numpy 1.x and a numpy 2.x may both be
     * there: pickles differ between the two).
     */
    static synchronized List<String> interpreters() {
        if (interpreters != null) return interpreters;
        Map<String, String> byVersion = new LinkedHashMap<>();
        for (String candidate : new String[] {"/usr/bin/python3", "python3"}) {
            try {
                Process p = new ProcessBuilder(candidate, "-c", "import numpy; print(numpy.__version__)").redirectErrorStream(true).start();
                String version = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
                if (p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0) byVersion.putIfAbsent(version, candidate);
            } catch (IOException e) {
                // not installed: try the next one
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (byVersion.isEmpty()) fail("this test needs python3 with numpy: apt-get install -y python3-numpy");
        return interpreters = List.copyOf(byVersion.values());
    }

    /**
     * What Python's pickle reads from checkpoint {@code mine} against {@code gold}: the same top-level
     * keys; format_version, config, step and run equal and of the same types (config entry by entry,
     * so tuples stay tuples); every params leaf an ndarray equal in dtype, shape and values. Returns
     * "OK " and the number of leaves; fails on the first difference.
     */
    static String sameCheckpoint(java.nio.file.Path mine, java.nio.file.Path gold) {
        return run("""
                mine = pickle.load(open(sys.argv[1], 'rb'))
                gold = pickle.load(open(sys.argv[2], 'rb'))
                assert sorted(mine) == sorted(gold), (sorted(mine), sorted(gold))
                for k in ('format_version', 'config', 'step', 'run'):
                    assert mine[k] == gold[k] and type(mine[k]) is type(gold[k]), (k, mine[k], gold[k])
                for k, v in gold['config'].items():
                    assert type(mine['config'][k]) is type(v), (k, type(mine['config'][k]), type(v))
                n = 0
                def walk(a, b):
                    global n
                    assert sorted(a) == sorted(b)
                    for k in a:
                        if isinstance(b[k], dict):
                            walk(a[k], b[k])
                        else:
                            assert type(a[k]) is np.ndarray and a[k].dtype == b[k].dtype and a[k].shape == b[k].shape, k
                            assert np.array_equal(a[k], b[k]), k
                            n += 1
                walk(mine['params'], gold['params'])
                print('OK', n)
                """, mine.toString(), gold.toString()).strip();
    }

    /** Runs the script with the first interpreter found; see {@link #runWith}. */
    static String run(String script, String... args) {
        return runWith(interpreters().get(0), script, args);
    }

    /** Runs the script (after the prelude) with {@code sys.argv[1:] = args}; returns stdout, fails on a non-zero exit. */
    static String runWith(String interpreter, String script, String... args) {
        List<String> cmd = new ArrayList<>(List.of(interpreter, "-c", PRELUDE + script));
        cmd.addAll(List.of(args));
        return dev.needlewb.golden.PythonProcess.run(cmd, 300);
    }
}
