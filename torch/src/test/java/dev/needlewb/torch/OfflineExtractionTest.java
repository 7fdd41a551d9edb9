package dev.needlewb.torch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.golden.Golden;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * libtorch comes out of the pytorch-native-cpu jar on the class path, never from the network: a
 * fresh JVM with an empty HOME (and user.home) runs {@code parity --engine torch}, and the libraries
 * it loads are the ones extracted under that HOME.
 */
class OfflineExtractionTest {
    @Test
    void anEmptyHomeGetsLibtorchFromTheJar(@TempDir Path home) throws Exception {
        Path out = home.resolve("parity");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
                "-Duser.home=" + home, "-cp", System.getProperty("java.class.path"), "dev.needlewb.cli.Main",
                "parity", Golden.mini("mini.cact").toString(), "--tokens", "1,5,9,12", "--engine", "torch", "--out", out.toString());
        pb.environment().put("HOME", home.toString());
        pb.environment().remove("ENGINE_CACHE_DIR");
        pb.environment().remove("DJL_CACHE_DIR");
        pb.environment().remove("PYTORCH_LIBRARY_PATH");
        pb.redirectErrorStream(true);
        Path log = home.resolve("log.txt");
        pb.redirectOutput(log.toFile());
        Process p = pb.start();
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).as("finished within 5 minutes").isTrue();
        assertThat(p.exitValue()).as(Files.readString(log)).isZero();
        try (Stream<Path> files = Files.walk(home.resolve(".djl.ai"))) {
            List<String> names = files.map(f -> f.getFileName().toString()).toList();
            assertThat(names).contains("libtorch_cpu.so", "0.36.0-libdjl_torch.so");
        }
        assertThat(out.resolve("parity.json")).exists();
    }
}
