package dev.needlewb.bench.cact;

import dev.needlewb.bench.Fork;
import dev.needlewb.converter.cact.CactFile;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Opening a released-geometry file of each generation in the same run (warm page cache): read
 * into memory, then validate header, codebook, directory and (Needle 3) the permutations, refusing
 * non-finite values as every command does. {@code needle2}: the released Needle 2 geometry (13.7
 * MB, 405 tensors); {@code needle3}: the released Needle 3 geometry in its own format with the
 * shipped bits scheme (35.3 MB, 581 tensors).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@org.openjdk.jmh.annotations.Fork(value = 2, jvmArgsAppend = {Fork.VECTOR, Fork.NATIVE, "-Xmx2g"})
public class GenerationOpenBenchmark {
    @Param({"needle2", "needle3"})
    public String model;

    private Path file;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        file = model.equals("needle2") ? ReleasedGeometryFile.write() : ReleasedGeometryFile.writeNeedle3();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        ReleasedGeometryFile.delete(file);
    }

    @Benchmark
    public int open() throws Exception {
        try (CactFile cact = CactFile.open(file)) {
            return cact.numTensors();
        }
    }
}
