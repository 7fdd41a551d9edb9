package dev.needlewb.cli;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.FileOutput;
import dev.needlewb.core.io.OutputSet;
import dev.needlewb.reports.report.Report;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a report's files (NAME.json, NAME.md and optionally NAME.html) atomically into a folder,
 * all of them or none.
 */
final class ReportFiles {
    private ReportFiles() {}

    /**
     * Fails unless {@code dir} is a writable folder or could be created as one; called before a
     * command does its work, so a run never ends on an output folder it cannot use.
     */
    static void checkWritable(Path dir) throws WorkbenchException {
        Path existing = dir.toAbsolutePath();
        while (existing != null && !Files.exists(existing)) existing = existing.getParent();
        if (existing == null) throw new WorkbenchException(ErrorKind.IO, dir + ": cannot create the output folder (no existing parent)");
        if (!Files.isDirectory(existing)) {
            throw new WorkbenchException(ErrorKind.IO, dir + ": cannot create the output folder (" + existing + " is not a folder)");
        }
        if (!Files.isWritable(existing)) throw new WorkbenchException(ErrorKind.IO, dir + ": output folder is not writable (" + existing + ")");
    }

    /**
     * Returns the paths written. The folder is created if missing; each file appears whole or not
     * at all, and when one cannot be written the others of this call are removed again (with the
     * folder, if this call created it), so no partial report is left behind.
     */
    static List<Path> write(Path dir, String name, Report report, String markdown, String html, Path... inputs)
            throws WorkbenchException {
        checkWritable(dir);
        boolean created = !Files.isDirectory(dir);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new WorkbenchException(ErrorKind.IO, dir + ": cannot create the output folder (" + e.getMessage() + ")", e);
        }
        List<Path> written = new ArrayList<>();
        try {
            written.add(text(dir.resolve(name + ".json"), report.json(), inputs));
            written.add(text(dir.resolve(name + ".md"), markdown, inputs));
            if (html != null) written.add(text(dir.resolve(name + ".html"), html, inputs));
        } catch (WorkbenchException | RuntimeException e) {
            for (Path p : written) quietlyDelete(p);
            if (created) quietlyDelete(dir);
            throw e;
        }
        return written;
    }

    private static void quietlyDelete(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // The original failure is the one to report; a file left here is named by it.
        }
    }

    /**
     * Stages NAME.json and NAME.md in {@code set}: they appear with the set's other files when it
     * commits, or not at all.
     */
    static void stage(OutputSet set, Path dir, String name, Report report, String markdown, Path... inputs) throws WorkbenchException {
        text(set, dir.resolve(name + ".json"), report.json(), inputs);
        text(set, dir.resolve(name + ".md"), markdown, inputs);
    }

    private static Path text(Path target, String content, Path... inputs) throws WorkbenchException {
        return text(FileOutput.ATOMIC, target, content, inputs);
    }

    private static Path text(FileOutput output, Path target, String content, Path... inputs) throws WorkbenchException {
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        output.write(target, ch -> {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) ch.write(b);
        }, inputs);
        return target;
    }
}
