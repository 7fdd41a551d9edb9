package dev.needlewb.bench.reference;

import dev.needlewb.bench.Fork;
import dev.needlewb.core.v2.Geometry;
import dev.needlewb.reference.Decoder;
import dev.needlewb.reference.ForwardOptions;
import dev.needlewb.reference.ReferenceModel;
import dev.needlewb.reference.SyntheticParams;
import java.util.SplittableRandom;
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
 * The float64 reference on the released Needle 2 geometry with random weights: a 256-token
 * full-sequence forward (= a prefill) and one cached decode step after a 256-token prompt under the
 * released KV window of 256. Targets: prefill under 5 s, a step under 50 ms on 2 cores.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@org.openjdk.jmh.annotations.Fork(value = 1, jvmArgsAppend = {Fork.VECTOR, Fork.NATIVE, "-Xmx8g"})
public class ReferenceBench {
    static final int PROMPT = 256;

    ReferenceModel model;
    int[] prompt;

    @Setup(Level.Trial)
    public void build() throws Exception {
        Geometry g = Geometry.needle2();
        model = ReferenceModel.fromFlaxParams(SyntheticParams.flax(g, 128, false, 7), g);
        prompt = tokens(PROMPT, g.vocab(), 11);
    }

    /** Seconds per call: each iteration is a few calls; three warm-up iterations let C2 compile the loops. */
    @Benchmark
    @Warmup(iterations = 3, time = 5)
    @Measurement(iterations = 3, time = 5)
    public double[][] prefill256() {
        return model.forward(prompt, ForwardOptions.DEFAULT);
    }

    /** A decoder positioned after the prompt; refilled each iteration so positions stay bounded. */
    @State(Scope.Thread)
    public static class Decoding {
        static final int CAPACITY = PROMPT + 512;
        Decoder decoder;
        int[] next;

        @Setup(Level.Iteration)
        public void prefill(ReferenceBench bench) {
            decoder = bench.model.decoder(CAPACITY, ForwardOptions.DEFAULT.withWindow(256, null));
            decoder.prefill(bench.prompt);
            next = tokens(CAPACITY - PROMPT, bench.model.geometry().vocab(), 13);
        }
    }

    @Benchmark
    @Warmup(iterations = 2, time = 2)
    @Measurement(iterations = 5, time = 3)
    public double[] decodeStep(Decoding state) {
        if (state.decoder.length() == Decoding.CAPACITY) state.prefill(this);
        return state.decoder.step(state.next[state.decoder.length() - PROMPT]);
    }

    static int[] tokens(int count, int vocab, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int[] t = new int[count];
        for (int i = 0; i < count; i++) t[i] = 1 + r.nextInt(vocab - 1);
        return t;
    }
}
