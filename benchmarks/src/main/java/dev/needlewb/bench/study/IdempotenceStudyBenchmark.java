package dev.needlewb.bench.study;

import dev.needlewb.bench.Fork;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cq.CqCodes;
import dev.needlewb.converter.cq.CqQuantizer;
import dev.needlewb.reports.study.IdempotenceRound;
import dev.needlewb.reports.study.IdempotenceStudy;
import java.util.SplittableRandom;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * One study round against one quantization of the same [2048, 512] N(0, 0.02) matrix, group
 * 128. {@code quantize} is the yardstick; {@code firstRound} is the dearest round (every group is
 * recomputed: re-quantize plus the bit-exact dequantization of every changed group);
 * {@code roundZero} builds a study from weights (quantize plus dequantize everything).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@org.openjdk.jmh.annotations.Fork(value = 1, jvmArgsAppend = {Fork.VECTOR, Fork.NATIVE, "-Xmx2g"})
public class IdempotenceStudyBenchmark {
    static final int ROWS = 2048;
    static final int COLS = 512;

    @Param({"2", "4"})
    int bits;

    private CqQuantizer quantizer;
    private float[] weights;
    private IdempotenceStudy fresh;

    @Setup(Level.Trial)
    public void weights() {
        quantizer = CqQuantizer.of(bits, 128);
        SplittableRandom random = new SplittableRandom(42);
        weights = new float[ROWS * COLS];
        for (int i = 0; i < weights.length; i++) {
            // Box-Muller; the benchmark needs plausible weights, not a particular stream.
            double g = Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
            weights[i] = (float) (0.02 * g);
        }
    }

    @Setup(Level.Invocation)
    public void freshStudy() throws WorkbenchException {
        fresh = IdempotenceStudy.fromWeights("bench", quantizer, weights, ROWS, COLS);
    }

    @Benchmark
    public CqCodes quantize() throws WorkbenchException {
        return quantizer.quantize("bench", weights, ROWS, COLS);
    }

    @Benchmark
    public IdempotenceRound firstRound() throws WorkbenchException {
        return fresh.next();
    }

    @Benchmark
    public IdempotenceStudy roundZero() throws WorkbenchException {
        return IdempotenceStudy.fromWeights("bench", quantizer, weights, ROWS, COLS);
    }
}
