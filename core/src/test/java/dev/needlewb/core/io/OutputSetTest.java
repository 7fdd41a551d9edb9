package dev.needlewb.core.io;

import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An output and its two manifest files as one unit: every failure before the commit leaves the
 * previous three as they were, a second writer is refused, and every state a kill can leave
 * (temporary files, a commit record with k of the renames done) is completed or cleaned by the
 * next writer.
 */
class OutputSetTest {
    @TempDir
    Path dir;
    private Path out, json, md;

    @BeforeEach
    void previousRun() throws IOException {
        out = Files.writeString(dir.resolve("m.pt"), "old output");
        json = Files.writeString(dir.resolve("m.pt.manifest.json"), "old json");
        md = Files.writeString(dir.resolve("m.pt.manifest.md"), "old md");
    }

    private List<Path> targets() {
        return List.of(out, json, md);
    }

    private static AtomicFileWriter.Body text(String s) {
        return ch -> ch.write(ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8)));
    }

    /** Every file in the folder but the lock, sorted. */
    private List<String> listing() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.equals(".m.pt.lock")).sorted().toList();
        }
    }

    private void assertOld() throws IOException {
        assertThat(Files.readString(out)).isEqualTo("old output");
        assertThat(Files.readString(json)).isEqualTo("old json");
        assertThat(Files.readString(md)).isEqualTo("old md");
        assertThat(listing()).containsExactly("m.pt", "m.pt.manifest.json", "m.pt.manifest.md");
    }

    private void assertNew() throws IOException {
        assertThat(Files.readString(out)).isEqualTo("new output");
        assertThat(Files.readString(json)).isEqualTo("new json");
        assertThat(Files.readString(md)).isEqualTo("new md");
        assertThat(listing()).containsExactly("m.pt", "m.pt.manifest.json", "m.pt.manifest.md");
    }

    @Test
    void aCommitReplacesAllThreeAndLeavesOnlyTheLock() throws Exception {
        try (OutputSet set = OutputSet.begin(targets())) {
            set.write(out, text("new output"));
            set.write(json, text("new json"));
            set.write(md, text("new md"));
            // staged, not yet visible
            assertThat(Files.readString(out)).isEqualTo("old output");
            assertThat(Files.readString(set.staged(out))).isEqualTo("new output");
            set.commit();
        }
        assertNew();
        assertThat(dir.resolve(".m.pt.lock")).exists();
    }

    /** Disk full (or any write error) at each of the three files: nothing changes, nothing is left. */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2})
    void aFailureWhileStagingLeavesThePreviousFiles(int failing) throws Exception {
        try (OutputSet set = OutputSet.begin(targets())) {
            List<Path> t = targets();
            assertThatThrownBy(() -> {
                for (int i = 0; i < 3; i++) {
                    if (i == failing) {
                        set.write(t.get(i), ch -> {
                            ch.write(ByteBuffer.wrap("partial".getBytes()));
                            throw new IOException("No space left on device");
                        });
                    }
                    set.write(t.get(i), text("new"));
                }
            }).isInstanceOfSatisfying(WorkbenchException.class, e -> assertThat(e.kind()).isEqualTo(ErrorKind.IO))
                    .hasRootCauseMessage("No space left on device");
        }
        assertOld();
    }

    @Test
    void closingWithoutACommitDiscardsTheStagedFiles() throws Exception {
        try (OutputSet set = OutputSet.begin(targets())) {
            set.write(out, text("new output"));
            set.write(json, text("new json"));
        }
        assertOld();
    }

    @Test
    void aSecondWriterOfTheSameTargetIsRefused() throws Exception {
        try (OutputSet first = OutputSet.begin(targets())) {
            refused(ErrorKind.OUTPUT_CONFLICT, () -> OutputSet.begin(targets()));
            first.write(out, text("new output"));
            first.write(json, text("new json"));
            first.write(md, text("new md"));
            first.commit();
        }
        assertNew();
        // released: the next writer gets it
        try (OutputSet again = OutputSet.begin(targets())) {
            assertThat(again).isNotNull();
        }
    }

    /**
     * A run killed while committing: its commit record lists three renames, of which {@code done}
     * happened. The next writer finishes them: the new three are in place, nothing else is left.
     */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3})
    void theNextWriterFinishesACommitKilledAfterAnyRename(int done) throws Exception {
        List<Path> t = targets();
        String[] content = {"new output", "new json", "new md"};
        StringBuilder record = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            Path temp = TempFiles.create(t.get(i));
            TempFiles.release(temp); // a killed process registers nothing
            Files.writeString(temp, content[i]);
            record.append(temp.getFileName()).append('\t').append(t.get(i).getFileName()).append('\n');
            if (i < done) Files.move(temp, t.get(i), StandardCopyOption.ATOMIC_MOVE);
        }
        Files.writeString(dir.resolve(".m.pt.commit"), record);
        try (OutputSet set = OutputSet.begin(t)) {
            assertNew();
        }
    }

    @Test
    void theNextWriterRemovesTemporaryFilesOfAKilledRunAndNoOthers() throws Exception {
        for (Path t : targets()) {
            Path temp = TempFiles.create(t);
            TempFiles.release(temp);
        }
        // a killed run's half-written commit record, and files that are not ours
        Path recordTemp = TempFiles.create(dir.resolve(".m.pt.commit"));
        TempFiles.release(recordTemp);
        Files.writeString(dir.resolve(".m.pt.bak.0123456789abcdef.tmp"), "another target's");
        Files.writeString(dir.resolve(".m.pt.tmp"), "not a temporary name of ours");
        try (OutputSet set = OutputSet.begin(targets())) {
            assertThat(listing()).containsExactly(".m.pt.bak.0123456789abcdef.tmp", ".m.pt.tmp", "m.pt", "m.pt.manifest.json",
                    "m.pt.manifest.md");
        }
    }

    @Test
    void aCommitRecordNamingOtherFilesIsRefused() throws Exception {
        Files.writeString(dir.resolve("precious"), "keep");
        Files.writeString(dir.resolve(".m.pt.commit"), "precious\tm.pt\n");
        assertThat(refused(ErrorKind.IO, () -> OutputSet.begin(targets()))).hasMessageContaining("not a commit record of m.pt");
        assertThat(Files.readString(dir.resolve("precious"))).isEqualTo("keep");
        assertThat(Files.readString(out)).isEqualTo("old output");
    }

    @Test
    void aMissingFolderIsOneLine() {
        Path missing = dir.resolve("no/such/out.pt");
        // the wording is the point: one line naming the target and the missing folder
        assertThat(refused(ErrorKind.IO, () -> OutputSet.begin(List.of(missing))))
                .hasMessage(missing + ": cannot write: the folder " + missing.getParent() + " does not exist");
    }
}
