package dev.needlewb.reports.cli;

import dev.needlewb.converter.WorkbenchException;
import dev.needlewb.converter.io.AtomicFileWriter;
import dev.needlewb.reports.report.Report;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Writes a report's files (NAME.json, NAME.md and optionally NAME.html) atomically into a folder. */
final class ReportFiles {
    private ReportFiles() {}

    /** Returns the paths written. The folder is created if missing; each file appears whole or not at all. */
    static List<Path> write(Path dir, String name, Report report, String markdown, String html, Path... inputs)
            throws WorkbenchException {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new WorkbenchException(dir + ": cannot create the output folder (" + e.getMessage() + ")", e);
        }
        if (!Files.isWritable(dir)) throw new WorkbenchException(dir + ": output folder is not writable");
        List<Path> written = new ArrayList<>();
        written.add(text(dir.resolve(name + ".json"), report.json(), inputs));
        written.add(text(dir.resolve(name + ".md"), markdown, inputs));
        if (html != null) written.add(text(dir.resolve(name + ".html"), html, inputs));
        return written;
    }

    private static Path text(Path target, String content, Path... inputs) throws WorkbenchException {
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        AtomicFileWriter.write(target, ch -> {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) ch.write(b);
        }, inputs);
        return target;
    }
}
