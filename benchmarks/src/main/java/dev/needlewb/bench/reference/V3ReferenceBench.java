package dev.needlewb.bench.reference;

import dev.needlewb.bench.Fork;
import dev.needlewb.converter.flax.v3.V3Config;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.v3.V3ProbeHead;
import dev.needlewb.reference.v3.SyntheticV3Params;
import dev.needlewb.reference.v3.V3Decoder;
import dev.needlewb.reference.v3.V3Model;
import dev.needlewb.reference.v3.V3Options;
import java.util.EnumSet;
import java.util.Map;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The Needle 3 float64 reference on the released geometry (SPEC section 8: d_model 768, 20
 * layers, 12/2 heads, qk 48 / v 64, hada_n 1024, vocab 8192, window 1024 with 4 global layers,
 * 5 engram sites of 6 x 18,432 x 128) with random weights and the confidence head.
 *
 * <p>{@code cold}: in a fresh JVM, the model built from the parameter tree (widening every weight
 * to float64) and its first 256-token forward, measured once per fork; the goal is under 10 s on
 * 2 cores. The tree itself (121 M random floats) is made in the setup, outside the measurement.
 * {@code prefill256}: the same forward, warmed up. {@code decodeStep}: one cached step after a
 * 256-token prompt.
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@org.openjdk.jmh.annotations.Fork(value = 1, jvmArgsAppend = {Fork.VECTOR, Fork.NATIVE, "-Xmx8g"})
public class V3ReferenceBench {
    static final int PROMPT = 256;

    V3Config config;
    Map<String, NpyArray> params;
    int[] prompt;

    @Setup(Level.Trial)
    public void build() throws Exception {
        config = V3Config.released();
        params = SyntheticV3Params.flax(config, EnumSet.of(V3ProbeHead.CONFIDENCE), 7);
        prompt = ReferenceBench.tokens(PROMPT, config.vocabSize(), 11);
    }

    /** Load and first forward in a fresh JVM: one shot per fork, three forks. */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @Warmup(iterations = 0)
    @Measurement(iterations = 1)
    @org.openjdk.jmh.annotations.Fork(value = 3, jvmArgsAppend = {Fork.VECTOR, Fork.NATIVE, "-Xmx8g"})
    public double[][] cold() throws Exception {
        return V3Model.load(params, config).forward(prompt, V3Options.DEFAULT);
    }

    /** The model for the warm benchmarks (the cold one builds its own inside the measurement). */
    @State(Scope.Benchmark)
    public static class Loaded {
        V3Model model;

        @Setup(Level.Trial)
        public void load(V3ReferenceBench bench) throws Exception {
            model = V3Model.load(bench.params, bench.config);
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @Warmup(iterations = 2, time = 10)
    @Measurement(iterations = 3, time = 10)
    public double[][] prefill256(Loaded loaded) {
        return loaded.model.forward(prompt, V3Options.DEFAULT);
    }

    /** A decoder positioned after the prompt; refilled each iteration so positions stay bounded. */
    @State(Scope.Thread)
    public static class Decoding {
        static final int CAPACITY = PROMPT + 512;
        V3Decoder decoder;
        int[] next;

        @Setup(Level.Iteration)
        public void prefill(V3ReferenceBench bench, Loaded loaded) {
            decoder = loaded.model.decoder(CAPACITY, V3Options.DEFAULT);
            decoder.prefill(bench.prompt);
            next = ReferenceBench.tokens(CAPACITY - PROMPT, bench.config.vocabSize(), 13);
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @Warmup(iterations = 2, time = 3)
    @Measurement(iterations = 5, time = 3)
    public double[] decodeStep(Decoding state, Loaded loaded) {
        if (state.decoder.length() == Decoding.CAPACITY) state.prefill(this, loaded);
        return state.decoder.step(state.next[state.decoder.length() - PROMPT]);
    }
}
