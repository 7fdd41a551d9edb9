package dev.needlewb.bench.cact;

import dev.needlewb.bench.Fork;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.EngineOptions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Loading a model two ways, on the same files in the same run (warm page cache): {@code read}
 * copies the file into memory ({@link CactFile#open}, what every command does since a file
 * truncated under a mapping killed the JVM), {@code map} memory-maps it (the way before, kept here
 * as the baseline). {@code open}: read or map, and validate header, codebook and directory;
 * {@code firstToken}: that, the engine's views built, and one int8 token through the whole model,
 * the first touch of every page of the weights. Files: the released Needle 2 geometry (13.7 MB)
 * and a Needle-3-sized one (35 MB, {@link ReleasedGeometryFile#NEEDLE3_SIZE}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@org.openjdk.jmh.annotations.Fork(value = 2, jvmArgsAppend = {Fork.VECTOR, Fork.NATIVE, "-Xmx2g"})
public class CactOpenBenchmark {
    @Param({"read", "map"})
    public String load;

    @Param({"needle2", "needle3-size"})
    public String model;

    private Path file;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        file = model.equals("needle2") ? ReleasedGeometryFile.write() : ReleasedGeometryFile.writeNeedle3Size();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        ReleasedGeometryFile.delete(file);
    }

    @Benchmark
    public int open() throws Exception {
        try (Loaded l = loaded()) {
            return l.cact.numTensors();
        }
    }

    @Benchmark
    public float firstToken() throws Exception {
        try (Loaded l = loaded(); Engine engine = Engine.load(l.cact, EngineOptions.production().withThreads(2))) {
            return engine.newSession().step(2)[0];
        }
    }

    /** The file read or mapped, and validated; closing frees the copy or unmaps. */
    private record Loaded(CactFile cact, Arena mapping) implements AutoCloseable {
        @Override
        public void close() {
            cact.close();
            if (mapping != null) mapping.close();
        }
    }

    private Loaded loaded() throws Exception {
        if (load.equals("read")) return new Loaded(CactFile.open(file), null);
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            MemorySegment mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
            return new Loaded(CactFile.parse(mapped, file), arena);
        } catch (Exception | Error e) {
            arena.close();
            throw e;
        }
    }
}
