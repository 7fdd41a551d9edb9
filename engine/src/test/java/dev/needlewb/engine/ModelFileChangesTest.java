package dev.needlewb.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A model file changed under a running session: the session must finish on the bytes it loaded.
 * With the file memory-mapped, a truncation made the next touch of a lost page raise SIGBUS (in
 * vectorized code the JVM died with exit 134; here the test JVM would), and a rewrite in place
 * changed the weights mid-sequence.
 */
class ModelFileChangesTest {

    /** What happens to the file between the first and the second half of the tokens. */
    enum Change {
        TRUNCATE_TO_ZERO {
            @Override
            void apply(Path file) throws IOException {
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                    ch.truncate(0);
                }
            }
        },
        TRUNCATE_TO_HALF {
            @Override
            void apply(Path file) throws IOException {
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                    ch.truncate(ch.size() / 2);
                }
            }
        },
        /** What {@code cp other.cact model.cact} does: truncate, then write other bytes into the same inode. */
        OVERWRITTEN_IN_PLACE {
            @Override
            void apply(Path file) throws IOException {
                long size = Files.size(file);
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                    ByteBuffer ones = ByteBuffer.allocate((int) size);
                    Arrays.fill(ones.array(), (byte) 0x55);
                    while (ones.hasRemaining()) ch.write(ones);
                }
            }
        },
        DELETED {
            @Override
            void apply(Path file) throws IOException {
                Files.delete(file);
            }
        };

        abstract void apply(Path file) throws IOException;
    }

    private static final int[] TOKENS = Arrays.copyOf(GoldenLogitsTest.tokens("s040"), 16);

    /** The logits of every position, prefilling the first half and stepping the rest. */
    private static float[][] run(Path model, Change change) throws Exception {
        float[][] logits = new float[TOKENS.length][];
        int half = TOKENS.length / 2;
        try (Engine e = Engine.open(model, EngineOptions.production().withThreads(2))) {
            Session s = e.newSession();
            for (int t = 0; t < half; t++) logits[t] = s.step(TOKENS[t]).clone();
            if (change != null) change.apply(model);
            for (int t = half; t < TOKENS.length; t++) logits[t] = s.step(TOKENS[t]).clone();
        }
        return logits;
    }

    @ParameterizedTest
    @EnumSource(Change.class)
    void aSessionFinishesOnTheBytesItLoaded(Change change, @TempDir Path dir) throws Exception {
        Path copy = Files.copy(GoldenLogitsTest.cact(), dir.resolve("model.cact"));
        float[][] untouched = run(GoldenLogitsTest.cact(), null);
        float[][] changed = run(copy, change);
        // bit for bit: the same kernels on the same bytes, one thread count
        for (int t = 0; t < TOKENS.length; t++) assertThat(changed[t]).as("position %d", t).containsExactly(untouched[t]);
    }

    @Test
    void aNewSessionOfTheSameEngineAlsoRunsOnTheLoadedBytes(@TempDir Path dir) throws Exception {
        Path copy = Files.copy(GoldenLogitsTest.cact(), dir.resolve("model.cact"));
        try (Engine e = Engine.open(copy, EngineOptions.production().withThreads(2))) {
            float[] before = e.newSession().prefill(TOKENS).clone();
            Change.TRUNCATE_TO_ZERO.apply(copy);
            assertThat(e.newSession().prefill(TOKENS)).containsExactly(before);
        }
    }
}
