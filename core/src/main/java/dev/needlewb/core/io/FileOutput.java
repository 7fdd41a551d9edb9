package dev.needlewb.core.io;

import dev.needlewb.core.WorkbenchException;
import java.nio.file.Path;

/**
 * Where writers put a file: at once and atomically ({@link AtomicFileWriter#write}), or staged as
 * part of a set that appears together ({@link OutputSet}).
 */
@FunctionalInterface
public interface FileOutput {
    /** {@link AtomicFileWriter#write}: the file appears whole when this returns. */
    FileOutput ATOMIC = AtomicFileWriter::write;

    /**
     * Writes {@code target} from {@code body}.
     *
     * @param inputs files the content is read from; writing over one of them is refused
     */
    void write(Path target, AtomicFileWriter.Body body, Path... inputs) throws WorkbenchException;
}
