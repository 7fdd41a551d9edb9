package dev.needlewb.bench.engine;

import dev.needlewb.bench.Fork;
import dev.needlewb.converter.cact.CactWriter;
import dev.needlewb.converter.synth.SyntheticV3Cact;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.EngineOptions;
import dev.needlewb.engine.Session;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
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
 * What Needle 3's confidence head costs on a synthetic file of the released geometry (the shipped widths and its
 * confidence head, k 4, q 4; int8 engine, 2 threads): {@code prefill} runs a 64-token prompt natively into a fresh
 * session without ({@code heads=off}) and with ({@code heads=pool}) the pooling of its hidden cells;
 * {@code readout} is the head read from a session that has pooled that prompt. All in one run, so the ratios hold.
 */
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 4)
@Measurement(iterations = 5, time = 4)
@org.openjdk.jmh.annotations.Fork(value = 1, jvmArgsAppend = {Fork.VECTOR, Fork.NATIVE, "-Xmx2g"})
public class ProbeHeadBenchmark {
    private static final int PROMPT = 64;

    @Param({"off", "pool"})
    public String heads;

    private Path file;
    private Engine engine;
    private Session pooled;
    private final int[] tokens = new int[PROMPT];

    @Setup
    public void build() throws Exception {
        file = Files.createTempFile("needle3-synthetic", ".cact");
        CactWriter.write(SyntheticV3Cact.released(7), file);
        engine = Engine.open(file, EngineOptions.production().withThreads(2));
        tokens[0] = 2;
        for (int i = 1; i < PROMPT; i++) tokens[i] = 3 + (i * 31 + 7) % 8000;
        pooled = engine.newSession().poolingProbeCells();
        pooled.prefill(tokens);
    }

    @TearDown
    public void tearDown() throws Exception {
        engine.close();
        Files.deleteIfExists(file);
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public float prefill() {
        Session s = engine.newSession();
        if (heads.equals("pool")) s.poolingProbeCells();
        return s.prefill(tokens)[17];
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public double readout() {
        return pooled.probeHeads().confidenceLogit();
    }
}
