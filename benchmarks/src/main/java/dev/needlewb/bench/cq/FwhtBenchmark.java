package dev.needlewb.bench.cq;

import dev.needlewb.bench.Fork;
import dev.needlewb.converter.cq.Fwht;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One 128-point Walsh-Hadamard transform (a CQ group) in float64 and in float32, each on a fresh
 * copy of the same input (the copy is part of the score; repeated in-place transforms overflow).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@org.openjdk.jmh.annotations.Fork(value = 1, jvmArgsAppend = {Fork.VECTOR, Fork.NATIVE})
public class FwhtBenchmark {
    private final double[] wideInput = new double[128];
    private final float[] narrowInput = new float[128];
    private final double[] wide = new double[128];
    private final float[] narrow = new float[128];

    @Setup
    public void values() {
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < 128; i++) narrowInput[i] = (float) (wideInput[i] = random.nextDouble() - 0.5);
    }

    @Benchmark
    public double[] float64() {
        System.arraycopy(wideInput, 0, wide, 0, 128);
        Fwht.unnormalized(wide, 0, 128);
        return wide;
    }

    @Benchmark
    public float[] float32() {
        System.arraycopy(narrowInput, 0, narrow, 0, 128);
        Fwht.unnormalized(narrow, 0, 128);
        return narrow;
    }
}
