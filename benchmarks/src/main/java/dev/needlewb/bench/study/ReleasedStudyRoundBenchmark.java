package dev.needlewb.bench.study;

import dev.needlewb.bench.Fork;
import dev.needlewb.bench.cact.ReleasedGeometryFile;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactDType;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cq.CqBlob;
import dev.needlewb.converter.cq.CqQuantizer;
import dev.needlewb.reports.study.IdempotenceStudy;
import dev.needlewb.converter.cq.InvalidCodeException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The yardstick on the released geometry's 43,270,144 quantized parameters (every CQ
 * tensor of a synthetic released-geometry file): {@code quantizeAll} quantizes each tensor's
 * dequantized weights once; {@code roundAll} runs one study round on each tensor from its stored
 * codes (every group recomputed: at these scales every norm moves each round). Compare the two
 * scores of one run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5)
@Measurement(iterations = 10)
@org.openjdk.jmh.annotations.Fork(value = 1, jvmArgsAppend = {Fork.VECTOR, Fork.NATIVE, "-Xmx4g"})
public class ReleasedStudyRoundBenchmark {
    private Path file;
    private CactFile cact;
    private final List<CqBlob> blobs = new ArrayList<>();
    private final List<CqQuantizer> quantizers = new ArrayList<>();
    private final List<float[]> weights = new ArrayList<>();
    private List<IdempotenceStudy> studies;

    @Setup(Level.Trial)
    public void file() throws IOException, WorkbenchException {
        file = ReleasedGeometryFile.write();
        cact = CactFile.open(file);
        for (int i = 0; i < cact.numTensors(); i++) {
            if (cact.tensor(i).dtype() != CactDType.CQ) continue;
            CqBlob blob = cact.cqBlob(i);
            blobs.add(blob);
            quantizers.add(CqQuantizer.of(blob.recordBits(), blob.group()));
            weights.add(cact.dequantize(i));
        }
    }

    @Setup(Level.Iteration)
    public void freshStudies() throws InvalidCodeException {
        studies = new ArrayList<>();
        for (CqBlob blob : blobs) studies.add(IdempotenceStudy.fromBlob("bench", blob));
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        cact.close();
        ReleasedGeometryFile.delete(file);
    }

    @Benchmark
    public void quantizeAll(Blackhole sink) throws WorkbenchException {
        for (int i = 0; i < blobs.size(); i++) {
            CqBlob b = blobs.get(i);
            sink.consume(quantizers.get(i).quantize("bench", weights.get(i), (int) b.rows(), (int) b.cols()));
        }
    }

    @Benchmark
    public void roundAll(Blackhole sink) throws WorkbenchException {
        for (IdempotenceStudy s : studies) sink.consume(s.next());
    }
}
