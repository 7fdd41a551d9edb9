package dev.needlewb.core.io;

import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSnapshotTest {
    @TempDir
    Path dir;

    @Test
    void copiesTheWholeFileAndOutlivesIt() throws Exception {
        byte[] content = new byte[3 << 20];
        new Random(1).nextBytes(content);
        Path file = Files.write(dir.resolve("model.bin"), content);
        try (FileSnapshot s = FileSnapshot.read(file)) {
            Files.delete(file);
            assertThat(s.bytes().toArray(ValueLayout.JAVA_BYTE)).isEqualTo(content);
            assertThat(s.bytes().address() % 4096).isZero();
        }
    }

    @Test
    void aMissingFileIsOneLine() {
        // the wording is the point: said the way a shell says it, on one line
        assertThat(refused(ErrorKind.IO, () -> FileSnapshot.read(dir.resolve("none.cact"))))
                .hasMessage(dir.resolve("none.cact") + ": cannot read: no such file");
    }

    /**
     * A writer rewrites the file in place (truncate, then write, as cp does) with two contents of
     * different lengths and bytes while snapshots are taken: each snapshot shows the file at one
     * moment (one version, whole or as far as the writer had got: the reader then refuses the
     * short file), or the read is refused as changing; never bytes of both versions. The writer
     * pauses between rewrites for longer than a file timestamp tick (a jiffy, at most 10 ms): a
     * file rewritten twice within one tick to its old size is the one change the stamp misses.
     */
    @Test
    void aFileRewrittenDuringTheReadGivesOneVersionOrARefusal() throws Exception {
        byte[] a = new byte[2 << 20], b = new byte[3 << 20];
        Arrays.fill(a, (byte) 'a');
        Arrays.fill(b, (byte) 'b');
        Path file = Files.write(dir.resolve("model.bin"), a);
        AtomicBoolean stop = new AtomicBoolean();
        Thread writer = Thread.ofPlatform().start(() -> {
            try {
                for (int i = 0; !stop.get(); i++) {
                    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                        ByteBuffer content = ByteBuffer.wrap(i % 2 == 0 ? b : a);
                        while (content.hasRemaining()) ch.write(content);
                    }
                    Thread.sleep(20);
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        int whole = 0, refused = 0;
        try {
            for (int i = 0; i < 200; i++) {
                try (FileSnapshot s = FileSnapshot.read(file)) {
                    byte[] got = s.bytes().toArray(ValueLayout.JAVA_BYTE);
                    byte[] version = got.length > 0 && got[0] == 'a' ? a : b;
                    assertThat(got.length <= version.length && Arrays.equals(got, 0, got.length, version, 0, got.length))
                            .as("snapshot %d of %d bytes holds one version", i, got.length).isTrue();
                    whole++;
                } catch (WorkbenchException e) {
                    assertThat(e.kind()).isEqualTo(ErrorKind.FILE_CHANGED);
                    refused++;
                }
            }
        } finally {
            stop.set(true);
            writer.join();
        }
        assertThat(whole + refused).isEqualTo(200);
    }
}
