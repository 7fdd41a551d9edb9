package dev.needlewb.reports.report;

import dev.needlewb.core.simd.VectorWidth;
import dev.needlewb.engine.kernel.Lanes;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The facts every report records about where it ran: tool version, JVM, flags, CPU, vector width. */
public record RunEnvironment(
        String toolVersion,
        String javaVersion,
        String javaVendor,
        List<String> jvmFlags,
        String cpuModel,
        List<String> cpuFlags,
        int availableProcessors,
        String os,
        Vectors vectors) {

    /**
     * The vector width the kernels ran at ({@link VectorWidth}): bits in use, the machine's widest
     * compiled width, where the choice came from, whether it is SIMD here, how the engine's 16
     * logical lanes map onto it (1, 2 or 4 physical vectors), and the vector registers the JIT has
     * (which size the batch prefill's register blocks).
     */
    public record Vectors(int bits, int machineBits, String source, boolean simd, String floatSpecies, int engineLogicalLanes,
            int engineVectorsPerLogical, int registers) {
        static Vectors current() {
            return new Vectors(VectorWidth.BITS, VectorWidth.MACHINE_BITS, VectorWidth.SOURCE, VectorWidth.nativeWidth(),
                    VectorWidth.FLOATS.toString(), Lanes.LOGICAL, Lanes.PARTS, VectorWidth.registers());
        }
    }

    public static RunEnvironment current() {
        String version = RunEnvironment.class.getPackage().getImplementationVersion();
        Map<String, String> cpu = cpuInfo();
        String flags = cpu.getOrDefault("flags", "");
        return new RunEnvironment(
                version == null ? "dev" : version,
                System.getProperty("java.runtime.version"),
                System.getProperty("java.vendor"),
                ManagementFactory.getRuntimeMXBean().getInputArguments(),
                cpu.getOrDefault("model name", System.getProperty("os.arch")),
                flags.isBlank() ? List.of() : List.of(flags.trim().split("\\s+")),
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
                Vectors.current());
    }

    /** The first processor's entries of /proc/cpuinfo; empty where it does not exist. */
    private static Map<String, String> cpuInfo() {
        Map<String, String> first = new LinkedHashMap<>();
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.isBlank()) break;
                int colon = line.indexOf(':');
                if (colon > 0) first.putIfAbsent(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
            }
        } catch (IOException | SecurityException e) {
            return Map.of();
        }
        return first;
    }

    /** SIMD-relevant CPU flags only, so Markdown reports stay readable. */
    public List<String> simdFlags() {
        return cpuFlags.stream().filter(f -> f.startsWith("avx") || f.startsWith("sse") || f.equals("fma")
                || f.startsWith("amx") || f.equals("f16c")).toList();
    }
}
