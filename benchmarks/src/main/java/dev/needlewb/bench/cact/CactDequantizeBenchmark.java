package dev.needlewb.bench.cact;

import dev.needlewb.bench.Fork;
import dev.needlewb.converter.cact.CactDType;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.TensorRecord;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Bit-exact dequantization of every CQ tensor of a released-geometry file on one thread; one
 * operation = one parameter, so the score is parameters per second.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@org.openjdk.jmh.annotations.Fork(value = 1, jvmArgsAppend = {Fork.VECTOR, Fork.NATIVE, "-Xmx3g"})
public class CactDequantizeBenchmark {
    private Path file;
    private CactFile cact;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        file = ReleasedGeometryFile.write();
        cact = CactFile.open(file);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        cact.close();
        ReleasedGeometryFile.delete(file);
    }

    @Benchmark
    @OperationsPerInvocation(ReleasedGeometryFile.CQ_PARAMETERS)
    public long dequantizeAllCq() throws Exception {
        long n = 0;
        for (TensorRecord r : cact.tensors()) {
            if (r.dtype() == CactDType.CQ) n += cact.dequantize(r.index()).length;
        }
        if (n != ReleasedGeometryFile.CQ_PARAMETERS) throw new IllegalStateException(n + " CQ parameters");
        return n;
    }
}
