package dev.needlewb.golden;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.core.io.Npz;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The upstream golden data, read from {@code ../shared/golden} relative to the project root
 * (never copied into the repository). Tests that need it fail with a clear message if it is absent.
 */
public final class Golden {
    private static final Map<Path, Map<String, NpyArray>> NPZ_CACHE = new ConcurrentHashMap<>();
    private static final ObjectMapper JSON = new ObjectMapper();

    private Golden() {}

    /** The project root: the nearest folder upwards from the working directory holding {@code .ci/run} or the parent pom. */
    public static Path projectRoot() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path p = dir; p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("converter")) && Files.isRegularFile(p.resolve("pom.xml"))) return p;
        }
        return fail("cannot find the project root (a folder with pom.xml and converter/) above " + dir);
    }

    public static Path dir() {
        Path golden = projectRoot().resolve("../shared/golden").normalize();
        if (!Files.isRegularFile(golden.resolve("README.md"))) {
            fail("golden data missing: expected the upstream outputs at " + golden
                    + " (../shared/golden relative to the project root)");
        }
        return golden;
    }

    public static Path mini(String file) {
        return existing(dir().resolve("mini").resolve(file));
    }

    /** A file of the Needle 3 golden data ({@code v3mini}, see its README). */
    public static Path v3mini(String file) {
        return existing(dir().resolve("v3mini").resolve(file));
    }

    public static Path common(String file) {
        return existing(dir().resolve("common").resolve(file));
    }

    private static Path existing(Path p) {
        if (!Files.isRegularFile(p)) fail("golden file missing: " + p);
        return p;
    }

    public static Map<String, NpyArray> npz(Path path) {
        return NPZ_CACHE.computeIfAbsent(path, p -> {
            try {
                return Npz.read(p);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    public static NpyArray array(Path npz, String key) {
        NpyArray a = npz(npz).get(key);
        if (a == null) fail("golden array " + key + " missing from " + npz);
        return a;
    }

    public static JsonNode json(Path path) {
        try {
            return JSON.readTree(path.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
