package dev.needlewb.bench.cact;

import dev.needlewb.bench.Fork;
import dev.needlewb.converter.cact.CactFile;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** Map + validate header, codebook and the 405-record directory of a released-geometry file (warm page cache). */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@org.openjdk.jmh.annotations.Fork(value = 1, jvmArgsAppend = {Fork.VECTOR, Fork.NATIVE, "-Xmx2g"})
public class CactOpenBenchmark {
    private Path file;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        file = ReleasedGeometryFile.write();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        ReleasedGeometryFile.delete(file);
    }

    @Benchmark
    public int openAndValidate() throws Exception {
        try (CactFile cact = CactFile.open(file)) {
            return cact.numTensors();
        }
    }
}
