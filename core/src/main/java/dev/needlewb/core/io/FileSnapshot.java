package dev.needlewb.core.io;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;

/**
 * A file's bytes copied into private off-heap memory. Nothing done to the file afterwards
 * (replaced, truncated, deleted, rewritten in place) reaches the copy: a memory-mapped file
 * that shrinks under its reader raises SIGBUS at the next touch of a lost page, which in
 * vectorized code kills the JVM. The copy is taken whole: the file's size, modification time
 * and identity must be the same before and after the read, or it is read again; a file that
 * keeps changing is refused.
 */
public final class FileSnapshot implements AutoCloseable {
    /** Reads of a file that changed while being read before giving up. */
    static final int ATTEMPTS = 3;
    /** Page-aligned like the mapping it replaces, so kernels see the same alignment. */
    private static final long ALIGNMENT = 4096;
    /** One read call fills at most this much (a ByteBuffer view is limited to 2^31 - 1 bytes). */
    private static final int CHUNK = 1 << 26;

    private final Arena arena;
    private final MemorySegment bytes;

    private FileSnapshot(Arena arena, MemorySegment bytes) {
        this.arena = arena;
        this.bytes = bytes;
    }

    /** Copies {@code file} into memory; {@link #close} frees the copy. */
    public static FileSnapshot read(Path file) throws WorkbenchException {
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            FileSnapshot snapshot = readOnce(file);
            if (snapshot != null) return snapshot;
        }
        throw new WorkbenchException(ErrorKind.FILE_CHANGED, file + ": the file changed while it was being read (" + ATTEMPTS
                + " attempts); run again once nothing is writing it");
    }

    /** The copy, or null when the file changed during the read. */
    private static FileSnapshot readOnce(Path file) throws WorkbenchException {
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            Stamp before = Stamp.of(file);
            long size = ch.size();
            MemorySegment copy = allocate(arena, file, size);
            boolean whole = fill(ch, copy) && ch.size() == size && before.equals(Stamp.of(file));
            if (whole) return new FileSnapshot(arena, copy);
            arena.close();
            return null;
        } catch (IOException e) {
            arena.close();
            throw WorkbenchException.cannotRead(file, e);
        } catch (WorkbenchException | RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    private static MemorySegment allocate(Arena arena, Path file, long size) throws WorkbenchException {
        try {
            return arena.allocate(size, ALIGNMENT);
        } catch (OutOfMemoryError e) {
            throw new WorkbenchException(ErrorKind.TOO_LARGE, file + ": " + size + " bytes do not fit in memory (" + e.getMessage() + ")", e);
        }
    }

    /** Reads exactly {@code copy.byteSize()} bytes; false when the file ends early or holds more. */
    private static boolean fill(FileChannel ch, MemorySegment copy) throws IOException {
        long at = 0;
        while (at < copy.byteSize()) {
            ByteBuffer window = copy.asSlice(at, Math.min(CHUNK, copy.byteSize() - at)).asByteBuffer();
            int n = ch.read(window, at);
            if (n < 0) return false;
            at += n;
        }
        return ch.read(ByteBuffer.allocate(1), at) < 0;
    }

    /** What a change to the file alters: its identity (inode), size and modification time. */
    private record Stamp(Object key, long size, FileTime modified) {
        static Stamp of(Path file) throws IOException {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            return new Stamp(a.fileKey(), a.size(), a.lastModifiedTime());
        }
    }

    /** The copied bytes; valid until {@link #close}. */
    public MemorySegment bytes() {
        return bytes;
    }

    /** Frees the copy; views obtained earlier become invalid. */
    @Override
    public void close() {
        arena.close();
    }
}
