package dev.needlewb.reference;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.simd.VectorWidth;
import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The golden mini model's logits (full sequence with quant off and on, and the cached decode path with
 * window 16 and 3 sinks) are the same bits at 128, 256 and 512 bits, on every machine: one run starts a
 * JVM per width (the width is fixed when the kernels load) and their digests must agree.
 *
 * <p>OpenBLAS, which runs the matrix products, picks its kernels from the CPU, and other kernels may sum in
 * other orders, so a digest holds per OpenBLAS core. The children therefore run the Haswell core
 * ({@code OPENBLAS_CORETYPE}) whenever the CPU can (AVX2 and FMA: every x86-64 of the last decade, AVX-512
 * machines included), the core {@link #HASWELL_DIGEST} was recorded on, so the run also pins that no bit
 * changed since. On a CPU without them the children run the machine's own core and must agree with each
 * other. The test never skips.
 */
class WidthInvariantLogitsTest {
    private static final String HASWELL = "Haswell";
    /** Recorded on OpenBLAS's Haswell core (Zen 3 and Intel AVX2 machines) before the kernels became width-agnostic. */
    static final String HASWELL_DIGEST = "ad6da1979974cbd4cb9d3ba72582cb3ef62b8693c82ea34f6f567075669be81b";
    private static final List<Integer> WIDTHS = List.of(128, 256, 512);

    @Test
    void miniModelLogitsAreTheSameBitsAtEveryWidth(@TempDir Path dir) throws Exception {
        boolean haswell = cpuHas("avx2") && cpuHas("fma");
        Map<Integer, Process> children = new LinkedHashMap<>();
        for (int bits : WIDTHS) {
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-Xmx2g",
                    "-D" + VectorWidth.PROPERTY + "=" + bits, "-cp", System.getProperty("java.class.path"), WidthInvariantLogitsTest.class.getName()));
            ProcessBuilder child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve(bits + ".txt").toFile());
            if (haswell) child.environment().put("OPENBLAS_CORETYPE", HASWELL);
            children.put(bits, child.start());
        }
        Map<Integer, String> digests = new LinkedHashMap<>();
        for (var e : children.entrySet()) {
            assertThat(e.getValue().waitFor(10, TimeUnit.MINUTES)).as(e.getKey() + " bits finished").isTrue();
            List<String> lines = Files.readAllLines(dir.resolve(e.getKey() + ".txt"));
            assertThat(e.getValue().exitValue()).as(e.getKey() + " bits: " + lines).isZero();
            String core = value(lines, "core "), digest = value(lines, "digest ");
            System.out.printf("%d bits, OpenBLAS core %s: %s%n", e.getKey(), core, digest);
            if (haswell) assertThat(core).as(e.getKey() + " bits").isEqualTo(HASWELL);
            digests.put(e.getKey(), digest);
        }
        assertThat(digests.values()).as("logits digests per width").containsOnly(digests.get(128));
        if (haswell) assertThat(digests.get(128)).as("the digest recorded on the Haswell core").isEqualTo(HASWELL_DIGEST);
    }

    private static String value(List<String> lines, String prefix) {
        return lines.stream().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length())).findFirst()
                .orElseThrow(() -> new AssertionError("no '" + prefix + "' line in " + lines));
    }

    private static boolean cpuHas(String flag) throws IOException {
        Path cpuinfo = Path.of("/proc/cpuinfo");
        if (!Files.isReadable(cpuinfo)) return false;
        return Files.readAllLines(cpuinfo).stream().filter(l -> l.startsWith("flags")).anyMatch(l -> List.of(l.split("\\s+")).contains(flag));
    }

    /** A child's work: prints the OpenBLAS core and the digest of the mini model's logits at this process's width. */
    public static void main(String[] args) throws Throwable {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        ReferenceModel model = MiniGolden.deq();
        int[] tokens = MiniGolden.tokens("s040");
        for (double[] row : model.forward(tokens, ForwardOptions.DEFAULT)) WidthInvariantOutputsTest.add(sha, row);
        for (double[] row : model.forward(tokens, ForwardOptions.DEFAULT.withQuant(true))) WidthInvariantOutputsTest.add(sha, row);
        for (double[] row : DecodeGoldenTest.stepwise(model, tokens, 5, ForwardOptions.DEFAULT.withWindow(16, 3))) {
            WidthInvariantOutputsTest.add(sha, row);
        }
        System.out.println("width " + VectorWidth.describe());
        System.out.println("core " + blasCore());
        System.out.println("digest " + HexFormat.of().formatHex(sha.digest()));
        System.exit(0);
    }

    /** {@code openblas_get_corename()}, which the JavaCPP binding does not map. */
    private static String blasCore() throws Throwable {
        new Matrix(new double[] {1}, 1, 1).apply(new double[] {1, 1}, 2); // loads OpenBLAS
        MemorySegment symbol = SymbolLookup.loaderLookup().find("openblas_get_corename").orElseThrow();
        MemorySegment name = (MemorySegment) Linker.nativeLinker()
                .downcallHandle(symbol, FunctionDescriptor.of(ValueLayout.ADDRESS)).invokeExact();
        return name.reinterpret(64).getString(0);
    }
}
