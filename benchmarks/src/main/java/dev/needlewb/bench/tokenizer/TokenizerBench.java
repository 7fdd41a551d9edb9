package dev.needlewb.bench.tokenizer;

import dev.needlewb.bench.Fork;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.tokenizer.SentencePieceModel;
import dev.needlewb.core.tokenizer.Tokenizer;
import java.nio.file.Path;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Encode and decode of a tool-call prompt repeated to {@code chars} characters, with the
 * tokenizer of a SentencePiece model (default: the golden mini model, run from the project root).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@org.openjdk.jmh.annotations.Fork(value = 1, jvmArgsAppend = {Fork.VECTOR, Fork.NATIVE})
public class TokenizerBench {
    private static final String PROMPT = "<|im_start|>user\n<tools>[{\"name\":\"get_weather\",\"description\":"
            + "\"Current weather for a city\",\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":"
            + "{\"type\":\"string\"}}}}]</tools>\nWhat is the weather in Paris, and café prices? 😀<|im_end|>\n"
            + "<|im_start|>assistant\n";

    @Param("../shared/golden/mini/tok512.model")
    public String model;

    @Param({"200", "20000"})
    public int chars;

    private Tokenizer tokenizer;
    private String text;
    private int[] ids;

    @Setup
    public void setup() throws WorkbenchException {
        tokenizer = new Tokenizer(SentencePieceModel.read(Path.of(model)).toVocab(dev.needlewb.core.generation.Generation.NEEDLE2));
        // one long run of prose without markers stresses the merge heap
        StringBuilder sb = new StringBuilder();
        while (sb.length() < chars) sb.append(chars > 1000 ? PROMPT.replaceAll("<[^>]*>", " ") : PROMPT);
        text = sb.substring(0, chars);
        ids = tokenizer.encode(text);
    }

    @Benchmark
    public int[] encode() {
        return tokenizer.encode(text);
    }

    @Benchmark
    public String decode() throws WorkbenchException {
        return tokenizer.decode(ids);
    }
}
