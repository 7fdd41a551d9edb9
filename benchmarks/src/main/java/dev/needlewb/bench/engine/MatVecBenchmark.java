package dev.needlewb.bench.engine;

import dev.needlewb.bench.Fork;
import dev.needlewb.engine.kernel.Activation;
import dev.needlewb.engine.kernel.NumericMode;
import dev.needlewb.engine.kernel.PackedCqMatrix;
import dev.needlewb.engine.kernel.RowPool;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
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
 * One CQ matrix-vector product on packed codes + norms held off-heap (as a loaded .cact is):
 * the logit projection shape [8192, 512] CQ4 and a layer projection [512, 512] CQ2, in both modes.
 * The activation is prepared once (its cost is per input, shared by several matrices). The long
 * warmup is needed: until C2 compiles the kernel, Vector API code runs interpreted at seconds per product.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 6, time = 2)
@Measurement(iterations = 5, time = 1)
@org.openjdk.jmh.annotations.Fork(value = 1, jvmArgsAppend = {Fork.VECTOR, Fork.NATIVE})
public class MatVecBenchmark {
    @Param({"CQ4_8192x512", "CQ2_512x512"})
    public String shape;

    @Param({"INT8", "EXACT"})
    public NumericMode mode;

    @Param({"1", "2"})
    public int threads;

    private Arena arena;
    private PackedCqMatrix matrix;
    private Activation activation;
    private RowPool pool;
    private float[] out;

    @Setup
    public void setUp() {
        int bits = shape.startsWith("CQ4") ? 4 : 2;
        String[] dims = shape.substring(4).split("x");
        int rows = Integer.parseInt(dims[0]);
        int cols = Integer.parseInt(dims[1]);
        SplittableRandom rnd = new SplittableRandom(1);
        long codeBytes = (long) rows * cols * bits / 8;
        long normCount = (long) rows * (cols / 128);
        arena = Arena.ofShared();
        MemorySegment blob = arena.allocate(codeBytes + 2 * normCount, 64);
        for (long i = 0; i < codeBytes; i++) blob.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) rnd.nextInt(256));
        for (long i = 0; i < normCount; i++) {
            blob.set(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, codeBytes + 2 * i, Float.floatToFloat16((float) rnd.nextDouble(0.1, 1)));
        }
        float[] values = new float[1 << bits];
        for (int i = 0; i < values.length; i++) values[i] = (float) ((i - (values.length - 1) / 2.0) * 0.03);
        matrix = PackedCqMatrix.over(shape, blob, rows, cols, 128, bits, values);
        activation = matrix.newActivation(mode);
        float[] x = new float[cols];
        for (int i = 0; i < cols; i++) x[i] = (float) rnd.nextGaussian();
        activation.prepare(x, 0);
        pool = new RowPool(threads);
        out = new float[rows];
    }

    @TearDown
    public void tearDown() {
        pool.close();
        arena.close();
    }

    @Benchmark
    public float[] matvec() {
        pool.matvec(activation, matrix, out);
        return out;
    }
}
