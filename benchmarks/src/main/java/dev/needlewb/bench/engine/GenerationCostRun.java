package dev.needlewb.bench.engine;

import dev.needlewb.bench.PhaseClock;
import dev.needlewb.bench.cact.ReleasedGeometryFile;
import dev.needlewb.core.simd.VectorWidth;
import dev.needlewb.engine.BatchPrefill;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.EngineOptions;
import dev.needlewb.engine.Session;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * Needle 3's engine cost against Needle 2's, side by side in one JVM: synthetic files of both
 * released geometries (Needle 3 with the shipped mixed CQ2/CQ4 widths), int8 engine, and for each
 * thread count the two models alternate round by round so that the machine's load falls on both
 * alike. Per round and model: 64 decode steps after a 16-token prompt (ms per token) and a batch
 * prefill of 256 tokens into a fresh session (prompt tokens per second). Prints best and median of
 * the rounds, the Needle 3 / Needle 2 cost ratios, and the goal: 1.25 times the ratio of
 * the files' bytes. The vector width is this JVM's ({@code -Dneedle.vector.bits=128} or 256 to choose one).
 * Run: {@code java --add-modules=jdk.incubator.vector --enable-native-access=ALL-UNNAMED -Xmx4g
 * -cp benchmarks/target/benchmarks.jar dev.needlewb.bench.engine.GenerationCostRun [ROUNDS]}.
 */
public final class GenerationCostRun {
    private static final int PROMPT = 16;
    private static final int STEPS = 64;
    private static final int PREFILL = 256;
    private static final int WARMUP_ROUNDS = 2;
    private static final double GOAL_FACTOR = 1.25;
    private static final String[] NAMES = {"Needle 2", "Needle 3"};

    private GenerationCostRun() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        PhaseClock.printLoad("at start");
        System.out.printf(Locale.ROOT, "vector width %d bits (%s), %d processors%n", VectorWidth.BITS, VectorWidth.SOURCE, Runtime.getRuntime().availableProcessors());
        Path[] files = {ReleasedGeometryFile.write(), ReleasedGeometryFile.writeNeedle3()};
        try {
            long[] bytes = {Files.size(files[0]), Files.size(files[1])};
            double goal = GOAL_FACTOR * bytes[1] / bytes[0];
            System.out.printf(Locale.ROOT, "files: %,d and %,d bytes; goal: decode cost ratio <= %.2f%n", bytes[0], bytes[1], goal);
            for (int threads = 1; threads <= 2; threads++) {
                measure(files, threads, rounds, goal);
            }
        } finally {
            for (Path f : files) ReleasedGeometryFile.delete(f);
        }
        PhaseClock.printLoad("at the end");
    }

    private static void measure(Path[] files, int threads, int rounds, double goal) throws Exception {
        double[][] decodeMs = new double[2][rounds];
        double[][] prefillTps = new double[2][rounds];
        Engine[] engines = new Engine[2];
        BatchPrefill[] batches = new BatchPrefill[2];
        try {
            for (int m = 0; m < 2; m++) {
                engines[m] = Engine.open(files[m], EngineOptions.production().withThreads(threads));
                batches[m] = BatchPrefill.open(engines[m]);
            }
            for (int r = -WARMUP_ROUNDS; r < rounds; r++) {
                for (int m = 0; m < 2; m++) {
                    double ms = decodeMsPerToken(engines[m]);
                    double tps = prefillTokensPerSecond(engines[m], batches[m]);
                    if (r >= 0) {
                        decodeMs[m][r] = ms;
                        prefillTps[m][r] = tps;
                    }
                }
            }
        } finally {
            for (BatchPrefill b : batches) if (b != null) b.close();
            for (Engine e : engines) if (e != null) e.close();
        }
        System.out.printf(Locale.ROOT, "%n%d thread(s), %d rounds after %d untimed:%n", threads, rounds, WARMUP_ROUNDS);
        for (int m = 0; m < 2; m++) {
            System.out.printf(Locale.ROOT, "  %s: decode best %.2f ms/token (median %.2f); batch prefill of %d best %.0f tokens/s (median %.0f)%n",
                    NAMES[m], min(decodeMs[m]), median(decodeMs[m]), PREFILL, max(prefillTps[m]), median(prefillTps[m]));
        }
        double decodeRatio = min(decodeMs[1]) / min(decodeMs[0]);
        double prefillRatio = max(prefillTps[0]) / max(prefillTps[1]);
        System.out.printf(Locale.ROOT, "  cost ratio Needle 3 / Needle 2: decode %.2f (medians %.2f), %s the goal %.2f; prefill %.2f (medians %.2f)%n",
                decodeRatio, median(decodeMs[1]) / median(decodeMs[0]), decodeRatio <= goal ? "within" : "above", goal,
                prefillRatio, median(prefillTps[0]) / median(prefillTps[1]));
    }

    private static double decodeMsPerToken(Engine engine) {
        Session session = engine.newSession();
        session.prefill(tokens(PROMPT, 20, engine));
        int[] next = tokens(STEPS, 30, engine);
        long start = System.nanoTime();
        for (int token : next) session.step(token);
        return (System.nanoTime() - start) / 1e6 / STEPS;
    }

    private static double prefillTokensPerSecond(Engine engine, BatchPrefill batch) {
        int[] prompt = tokens(PREFILL, 3, engine);
        long start = System.nanoTime();
        batch.prefill(engine.newSession(), prompt);
        return PREFILL / ((System.nanoTime() - start) / 1e9);
    }

    /** Token ids spread over the vocabulary, the same for both models (both have 8,192 ids). */
    private static int[] tokens(int n, int first, Engine engine) {
        int vocab = engine.geometry().vocab();
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) ids[i] = first + (i * 31 + 7) % (vocab - first);
        return ids;
    }

    private static double min(double[] v) {
        return Arrays.stream(v).min().orElseThrow();
    }

    private static double max(double[] v) {
        return Arrays.stream(v).max().orElseThrow();
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
