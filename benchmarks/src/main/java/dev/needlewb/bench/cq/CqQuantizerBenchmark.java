package dev.needlewb.bench.cq;

import dev.needlewb.bench.Fork;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cq.CqCodes;
import dev.needlewb.converter.cq.CqQuantizer;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * Quantizing a Needle-2-sized model: the [8192, 512] CQ4 embedding plus 141 CQ2 matrices of
 * [512, 512] (41,156,608 parameters; the release has 43.3 M CQ parameters in 145 tensors),
 * N(0, 0.02) weights, group 128. Parameters per second = 41,156,608 / score.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 5)
@org.openjdk.jmh.annotations.Fork(value = 1, jvmArgsAppend = {Fork.VECTOR, Fork.NATIVE, "-Xmx2g"})
public class CqQuantizerBenchmark {
    static final int CQ2_MATRICES = 141;
    static final int CQ2_ROWS = 512;
    static final int CQ2_COLS = 512;
    static final int EMBED_ROWS = 8192;
    static final int EMBED_COLS = 512;
    public static final long PARAMETERS = (long) CQ2_MATRICES * CQ2_ROWS * CQ2_COLS + (long) EMBED_ROWS * EMBED_COLS;

    private float[] embedding;
    private float[][] cq2;
    private final CqQuantizer cq4Quantizer = CqQuantizer.of(4, 128);
    private final CqQuantizer cq2Quantizer = CqQuantizer.of(2, 128);

    @Setup
    public void weights() {
        SplittableRandom random = new SplittableRandom(42);
        embedding = gaussian(random, EMBED_ROWS * EMBED_COLS);
        cq2 = new float[CQ2_MATRICES][];
        for (int m = 0; m < CQ2_MATRICES; m++) cq2[m] = gaussian(random, CQ2_ROWS * CQ2_COLS);
    }

    private static float[] gaussian(SplittableRandom random, int n) {
        float[] w = new float[n];
        for (int i = 0; i < n; i++) w[i] = (float) (0.02 * gaussian(random));
        return w;
    }

    private static double gaussian(SplittableRandom random) {
        // Box-Muller; the benchmark needs plausible weights, not a particular stream.
        return Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
    }

    @Benchmark
    public void releasedWorkload(Blackhole sink) throws WorkbenchException {
        CqCodes embed = cq4Quantizer.quantize("embedding", embedding, EMBED_ROWS, EMBED_COLS);
        sink.consume(embed.norms());
        for (int m = 0; m < CQ2_MATRICES; m++) {
            sink.consume(cq2Quantizer.quantize("cq2." + m, cq2[m], CQ2_ROWS, CQ2_COLS).codes());
        }
    }
}
