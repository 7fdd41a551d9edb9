package dev.needlewb.bench.convert;

import dev.needlewb.bench.Fork;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactModel;
import dev.needlewb.converter.cact.CactWriter;
import dev.needlewb.converter.convert.ConvertRequest;
import dev.needlewb.converter.convert.Converter;
import dev.needlewb.converter.flax.FlaxCheckpoint;
import dev.needlewb.converter.flax.FlaxCheckpointWriter;
import dev.needlewb.converter.flax.FlaxConfig;
import dev.needlewb.converter.flax.FlaxParamShapes;
import dev.needlewb.core.io.NpyArray;
import dev.needlewb.converter.v2.ProbeHead;
import dev.needlewb.converter.synth.SyntheticCact;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * End-to-end conversions of the released geometry (43.6 M parameters, both probe heads):
 * a synthetic Flax checkpoint (N(0, 0.02) weights) to .cact with the released bits map, and
 * a .cact to .safetensors and to .pt. Each run reads the input file and writes the output
 * atomically, as {@code needle-wb convert} does (manifest excluded).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 5)
@org.openjdk.jmh.annotations.Fork(value = 1, jvmArgsAppend = {Fork.VECTOR, Fork.NATIVE, "-Xmx3g"})
public class ConvertBenchmark {
    private Path dir;
    private Path checkpoint;
    private Path cact;

    @Setup
    public void files() throws IOException, WorkbenchException {
        dir = Files.createTempDirectory("convert-bench");
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("num_layers", 27L);
        config.put("weight_bits", "embedding=4,mhc=4,default=2");
        FlaxConfig c = FlaxConfig.of(config);
        SplittableRandom random = new SplittableRandom(7);
        SequencedMap<String, NpyArray> params = new LinkedHashMap<>();
        for (var e : FlaxParamShapes.expected(c, new FlaxParamShapes.Parts(true, true, false)).entrySet()) {
            float[] w = new float[(int) NpyArray.elementCount(e.getValue())];
            for (int i = 0; i < w.length; i++) w[i] = (float) (0.02 * (random.nextDouble() + random.nextDouble() + random.nextDouble() - 1.5));
            params.put(e.getKey(), NpyArray.ofFloats(e.getValue(), w));
        }
        checkpoint = dir.resolve("needle2.pkl");
        FlaxCheckpointWriter.write(new FlaxCheckpoint(2, params, config, 0L, Map.of()), checkpoint);
        cact = dir.resolve("needle2.cact");
        CactModel model = SyntheticCact.released(1, List.of(ProbeHead.CONTRASTIVE, ProbeHead.CONFIDENCE));
        CactWriter.write(model, cact);
    }

    @TearDown
    public void clean() throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }

    private void convert(Path in, String out, Path tokenizer) throws WorkbenchException {
        Converter.run(new ConvertRequest(in, dir.resolve(out), null, null, null, tokenizer, null, null, false), (d, t) -> {});
    }

    @Benchmark
    public void checkpointToCact() throws WorkbenchException {
        convert(checkpoint, "out.cact", cact);
    }

    @Benchmark
    public void cactToSafetensors() throws WorkbenchException {
        convert(cact, "out.safetensors", null);
    }

    @Benchmark
    public void cactToPt() throws WorkbenchException {
        convert(cact, "out.pt", null);
    }
}
