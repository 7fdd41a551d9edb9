package dev.needlewb.bench.engine;

import dev.needlewb.bench.Fork;
import dev.needlewb.converter.cact.CactWriter;
import dev.needlewb.converter.synth.SyntheticCact;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.EngineOptions;
import dev.needlewb.engine.Session;
import dev.needlewb.engine.kernel.NumericMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
 * Decode speed on a synthetic model of the released geometry (27 layers, d 512, vocab 8192,
 * CQ2 + CQ4, window 256): one op = one token through the whole model with full-vocabulary logits,
 * batch 1. Each iteration starts a session and first fills the 256-position window, so the
 * attention cost is the steady-state one. Also the load time (read + views) of the same file.
 */
@State(Scope.Benchmark)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@org.openjdk.jmh.annotations.Fork(value = 1, jvmArgsAppend = {Fork.VECTOR, Fork.NATIVE, "-Xmx2g"})
public class DecodeBenchmark {
    private static final int FILL = 256;

    @Param({"INT8", "EXACT"})
    public NumericMode mode;

    @Param({"2", "1"})
    public int threads;

    private Path file;
    private Engine engine;
    private Session session;
    private int token;

    @Setup(Level.Trial)
    public void build() throws Exception {
        file = Files.createTempFile("needle2-synthetic", ".cact");
        CactWriter.write(SyntheticCact.released(7, List.of()), file);
        // Positions beyond the header's 2048 so a fast iteration never fills the session; with the
        // window the KV cache stays 256 slots regardless.
        engine = Engine.open(file, new EngineOptions(mode, threads, EngineOptions.FROM_HEADER, 0, 1 << 16));
    }

    @Setup(Level.Iteration)
    public void fillWindow() {
        session = engine.newSession();
        for (int i = 0; i < FILL; i++) session.step(3 + i % 4000);
        token = 17;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        engine.close();
        Files.deleteIfExists(file);
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public float decodeStep() {
        float[] logits = session.step(token);
        token = 3 + (token * 31 + 7) % 8000;
        return logits[token];
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public int load() throws Exception {
        try (Engine e = Engine.open(file, EngineOptions.production().withMode(mode).withThreads(threads))) {
            return e.geometry().vocab();
        }
    }
}
