package dev.needlewb.core.io;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Writes a file so that readers see either the old or the complete new content: the body
 * writes a temporary file in the target's folder ({@link TempFiles}), which is fsynced and renamed
 * over the target atomically. On any failure, and when the JVM is stopped before the rename, the
 * temporary file is deleted and the target is untouched.
 */
public final class AtomicFileWriter {
    /** Writes the content to an open channel. */
    @FunctionalInterface
    public interface Body {
        void write(FileChannel channel) throws IOException, WorkbenchException;
    }

    private AtomicFileWriter() {}

    /**
     * Writes {@code target} atomically.
     *
     * @param inputs files the content is read from; refused if {@code target} is one of them
     *     (compared by real path, so links and relative names are caught)
     */
    public static void write(Path target, Body body, Path... inputs) throws WorkbenchException {
        Path temp = stage(target, body, inputs);
        try {
            synchronized (TempFiles.COMMIT) {
                TempFiles.checkRunning(target);
                Files.move(temp, target.toAbsolutePath(), StandardCopyOption.ATOMIC_MOVE);
                TempFiles.release(temp);
            }
        } catch (IOException | WorkbenchException e) {
            TempFiles.discard(temp);
            if (e instanceof WorkbenchException w) throw w;
            throw new WorkbenchException(ErrorKind.IO, target + ": cannot write: " + e, e);
        }
        syncDirectory(target.toAbsolutePath().getParent());
    }

    /**
     * Writes the content of {@code target} to a new temporary file beside it, forced to disk and
     * carrying the target's permissions, and returns that file; the caller renames or discards it.
     * On failure nothing is left behind.
     */
    static Path stage(Path target, Body body, Path... inputs) throws WorkbenchException {
        Path absolute = target.toAbsolutePath();
        for (Path input : inputs) {
            if (sameFile(absolute, input)) {
                throw new WorkbenchException(ErrorKind.OUTPUT_CONFLICT, target + ": refusing to overwrite the input file " + input);
            }
        }
        Path temp = null;
        try {
            temp = TempFiles.create(absolute);
            setPermissions(temp, absolute);
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                body.write(ch);
                ch.force(true);
            }
            Path staged = temp;
            temp = null;
            return staged;
        } catch (IOException e) {
            throw new WorkbenchException(ErrorKind.IO, target + ": cannot write: " + e, e);
        } finally {
            if (temp != null) TempFiles.discard(temp);
        }
    }

    private static boolean sameFile(Path target, Path input) throws WorkbenchException {
        try {
            if (!Files.exists(target) || !Files.exists(input)) return target.normalize().equals(input.toAbsolutePath().normalize());
            return Files.isSameFile(target, input);
        } catch (IOException e) {
            throw new WorkbenchException(ErrorKind.IO, target + ": cannot compare with input " + input + ": " + e, e);
        }
    }

    /**
     * Temp files are created owner-only; the result should carry the permissions of the file it
     * replaces, or the usual rw-r--r-- of a new file.
     */
    private static void setPermissions(Path temp, Path target) throws IOException {
        if (!Files.getFileStore(temp).supportsFileAttributeView(PosixFileAttributeView.class)) return;
        Files.setPosixFilePermissions(temp, Files.exists(target)
                ? Files.getPosixFilePermissions(target)
                : PosixFilePermissions.fromString("rw-r--r--"));
    }

    /** Makes renames durable where the platform allows opening a directory (Linux). */
    static void syncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException ignored) {
            // not supported on every platform; the data itself was forced before the rename
        }
    }
}
