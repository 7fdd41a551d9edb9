package dev.needlewb.bench.engine;

import dev.needlewb.bench.Fork;
import dev.needlewb.converter.cact.CactWriter;
import dev.needlewb.converter.synth.SyntheticCact;
import dev.needlewb.engine.BatchPrefill;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.EngineOptions;
import dev.needlewb.engine.Prefill;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Prefill speed on a synthetic model of the released geometry (27 layers, d 512, vocab 8192, window
 * 256), int8 engine, batch 1: one invocation prefills a 256-token prompt into a fresh session, and
 * the score is prompt tokens per second. {@code native} feeds the tokens one by one on the packed
 * kernels; {@code batch} runs the whole prompt at once ({@link BatchPrefill}, float32 GEMMs on dense
 * weights built once in setup, on the engine's threads). Both in the same run.
 */
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
@org.openjdk.jmh.annotations.Fork(value = 1, jvmArgsAppend = {Fork.VECTOR, Fork.NATIVE, "-Xmx2g"})
public class PrefillBenchmark {
    private static final int PROMPT = 256;

    @Param({"batch", "native"})
    public String prefill;

    @Param({"2"})
    public int threads;

    private Path file;
    private Engine engine;
    private BatchPrefill batch;
    private Prefill path;
    private final int[] tokens = new int[PROMPT];

    @Setup
    public void build() throws Exception {
        file = Files.createTempFile("needle2-synthetic", ".cact");
        CactWriter.write(SyntheticCact.released(7, List.of()), file);
        engine = Engine.open(file, EngineOptions.production().withThreads(threads));
        if (prefill.equals("batch")) {
            batch = BatchPrefill.open(engine);
            path = batch;
        } else {
            path = Prefill.NATIVE;
        }
        tokens[0] = 2;
        for (int i = 1; i < PROMPT; i++) tokens[i] = 3 + (i * 31 + 7) % 8000;
    }

    @TearDown
    public void tearDown() throws Exception {
        if (batch != null) batch.close();
        engine.close();
        Files.deleteIfExists(file);
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(PROMPT)
    public float prefillPrompt() {
        return path.prefill(engine.newSession(), tokens)[17];
    }
}
