package dev.needlewb.core.io;

import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFileWriterTest {
    @TempDir
    Path dir;

    @Test
    void replacesTheTargetAndLeavesNoTemporaryFile() throws Exception {
        Path target = dir.resolve("out.bin");
        Files.writeString(target, "old");
        AtomicFileWriter.write(target, ch -> ch.write(ByteBuffer.wrap("new".getBytes())));
        assertThat(Files.readString(target)).isEqualTo("new");
        assertThat(listing()).containsExactly("out.bin");
    }

    @Test
    void failureKeepsTheOldContentAndDeletesTheTemporaryFile() throws Exception {
        Path target = dir.resolve("out.bin");
        Files.writeString(target, "old");
        assertThatThrownBy(() -> AtomicFileWriter.write(target, ch -> {
            ch.write(ByteBuffer.wrap("partial".getBytes()));
            throw new IOException("disk full");
        })).isInstanceOfSatisfying(WorkbenchException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.IO)).hasRootCauseMessage("disk full");
        assertThat(Files.readString(target)).isEqualTo("old");
        assertThat(listing()).containsExactly("out.bin");
    }

    @Test
    void refusesToOverwriteAnInputEvenThroughALink() throws Exception {
        Path input = dir.resolve("model.cact");
        Files.writeString(input, "model");
        Path link = Files.createSymbolicLink(dir.resolve("alias.cact"), input);
        Path relative = Path.of("").toAbsolutePath().relativize(input);
        for (Path target : new Path[] {input, link, relative}) {
            refused(ErrorKind.OUTPUT_CONFLICT, () -> AtomicFileWriter.write(target, ch -> ch.write(ByteBuffer.wrap(new byte[1])), input));
        }
        assertThat(Files.readString(input)).isEqualTo("model");
    }

    @Test
    void writesANewFileNextToAnInput() throws Exception {
        Path input = dir.resolve("in.cact");
        Files.writeString(input, "in");
        AtomicFileWriter.write(dir.resolve("fresh.cact"), ch -> ch.write(ByteBuffer.wrap("x".getBytes())), input);
        assertThat(Files.readString(dir.resolve("fresh.cact"))).isEqualTo("x");
    }

    private Stream<String> listingStream() throws IOException {
        return Files.list(dir).map(p -> p.getFileName().toString()).sorted();
    }

    private java.util.List<String> listing() throws IOException {
        try (Stream<String> s = listingStream()) {
            return s.toList();
        }
    }
}
