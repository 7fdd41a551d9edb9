package dev.needlewb.core.io;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Files in one folder that appear together or not at all, e.g. a conversion's output and its
 * manifest. {@link #begin} takes the lock of the set (a {@code .PRIMARY.lock} file beside the
 * primary target: a second writer of the same target is refused while the first runs, kill -9
 * included, since the operating system drops the lock with the process); finishes the commit of a
 * run killed while renaming (the commit record {@code .PRIMARY.commit} lists its renames); and
 * deletes the temporary files a killed run left. {@link #write} stages each file (temporary file,
 * fsync); {@link #commit} writes the commit record, renames every staged file over its target,
 * then deletes the record. A failure or a stop before the commit leaves every target as it was;
 * a kill during it leaves the record, and the next {@link #begin} completes the renames.
 *
 * <p>The lock file stays: deleting it would let a writer waiting on the deleted file and one
 * creating a new file both believe they hold the lock.
 */
public final class OutputSet implements FileOutput, AutoCloseable {
    private final Path dir;
    private final List<Path> targets;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final Path record;
    private final Map<Path, Path> staged = new LinkedHashMap<>();
    private boolean committed;

    private OutputSet(Path dir, List<Path> targets, FileChannel lockChannel, FileLock lock, Path record) {
        this.dir = dir;
        this.targets = targets;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.record = record;
    }

    /**
     * Locks the set whose first target is the primary one (all in one folder), completes an
     * interrupted commit and removes the temporary files a killed run left.
     */
    public static OutputSet begin(List<Path> targets) throws WorkbenchException {
        List<Path> absolute = targets.stream().map(p -> p.toAbsolutePath().normalize()).toList();
        Path primary = absolute.getFirst();
        Path dir = primary.getParent();
        for (Path t : absolute) {
            if (!t.getParent().equals(dir)) throw new IllegalArgumentException(t + " is not in " + dir);
        }
        if (!Files.isDirectory(dir)) throw new WorkbenchException(ErrorKind.IO, targets.getFirst() + ": cannot write: the folder " + dir + " does not exist");
        Path lockFile = dir.resolve("." + primary.getFileName() + ".lock");
        FileChannel ch = null;
        try {
            ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = tryLock(ch);
            if (lock == null) {
                throw new WorkbenchException(ErrorKind.OUTPUT_CONFLICT, targets.getFirst() + ": another process is writing it (it holds " + lockFile
                        + "); run again when it has finished");
            }
            OutputSet set = new OutputSet(dir, absolute, ch, lock, dir.resolve("." + primary.getFileName() + ".commit"));
            ch = null;
            try {
                set.recover();
                set.removeLeftOvers();
            } catch (WorkbenchException | RuntimeException e) {
                set.close();
                throw e;
            }
            return set;
        } catch (IOException e) {
            throw new WorkbenchException(ErrorKind.IO, targets.getFirst() + ": cannot lock " + lockFile + ": " + e.getMessage(), e);
        } finally {
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // the failure being reported matters more
                }
            }
        }
    }

    private static FileLock tryLock(FileChannel ch) throws IOException {
        try {
            return ch.tryLock();
        } catch (OverlappingFileLockException e) {
            return null; // this JVM already writes the set
        }
    }

    /** Stages {@code target}, one of this set's targets: it is renamed into place by {@link #commit}. */
    @Override
    public void write(Path target, AtomicFileWriter.Body body, Path... inputs) throws WorkbenchException {
        Path absolute = target.toAbsolutePath().normalize();
        if (!targets.contains(absolute)) throw new IllegalArgumentException(target + " is not one of " + targets);
        if (committed) throw new IllegalStateException("the set is committed");
        Path old = staged.remove(absolute);
        if (old != null) TempFiles.discard(old);
        staged.put(absolute, AtomicFileWriter.stage(absolute, body, inputs));
    }

    /** The staged content of {@code target}: the file to hash or check before the commit. */
    public Path staged(Path target) {
        Path temp = staged.get(target.toAbsolutePath().normalize());
        if (temp == null) throw new IllegalArgumentException(target + " is not staged");
        return temp;
    }

    /** Renames every staged file over its target: all of them appear, or (killed midway) the next {@link #begin} finishes. */
    public void commit() throws WorkbenchException {
        synchronized (TempFiles.COMMIT) {
            TempFiles.checkRunning(targets.getFirst());
            StringBuilder lines = new StringBuilder();
            staged.forEach((target, temp) -> lines.append(temp.getFileName()).append('\t').append(target.getFileName()).append('\n'));
            AtomicFileWriter.write(record, ch -> ch.write(StandardCharsets.UTF_8.encode(lines.toString())));
            // from here on the staged files belong to the record: kept for the next begin if a rename fails
            committed = true;
            try {
                for (var e : staged.entrySet()) {
                    Files.move(e.getValue(), e.getKey(), StandardCopyOption.ATOMIC_MOVE);
                    TempFiles.release(e.getValue());
                }
                AtomicFileWriter.syncDirectory(dir);
                Files.delete(record);
                AtomicFileWriter.syncDirectory(dir);
            } catch (IOException e) {
                staged.values().forEach(TempFiles::release);
                throw new WorkbenchException(ErrorKind.IO, targets.getFirst() + ": cannot put the written files in place: " + e
                        + " (the next run to this target finishes what " + record.getFileName() + " lists)", e);
            }
        }
    }

    /** Finishes the renames a commit record lists (a run killed while committing), then deletes the record. */
    private void recover() throws WorkbenchException {
        if (!Files.exists(record)) return;
        try {
            List<String[]> renames = new ArrayList<>();
            for (String line : Files.readAllLines(record, StandardCharsets.UTF_8)) {
                String[] pair = line.split("\t", -1);
                Path target = pair.length == 2 ? dir.resolve(pair[1]).normalize() : null;
                // only renames this class writes: a temporary file of a target of this set over that target
                if (target == null || !targets.contains(target) || !TempFiles.isTempOf(pair[0], target)) {
                    throw new WorkbenchException(ErrorKind.IO, record + ": not a commit record of " + targets.getFirst().getFileName()
                            + " (line '" + line + "'); remove it by hand once you have checked the files");
                }
                renames.add(pair);
            }
            for (String[] r : renames) {
                Path temp = dir.resolve(r[0]);
                if (Files.exists(temp)) Files.move(temp, dir.resolve(r[1]), StandardCopyOption.ATOMIC_MOVE);
            }
            AtomicFileWriter.syncDirectory(dir);
            Files.delete(record);
            AtomicFileWriter.syncDirectory(dir);
        } catch (IOException e) {
            throw new WorkbenchException(ErrorKind.IO, record + ": cannot finish the interrupted commit it records: " + e.getMessage(), e);
        }
    }

    /** Deletes the temporary files of this set's targets (none can be live: the lock is held). */
    private void removeLeftOvers() throws WorkbenchException {
        try {
            for (Path t : targets) {
                for (Path temp : TempFiles.leftOver(t)) Files.deleteIfExists(temp);
            }
            for (Path temp : TempFiles.leftOver(record)) Files.deleteIfExists(temp);
        } catch (IOException e) {
            throw new WorkbenchException(ErrorKind.IO, targets.getFirst() + ": cannot remove temporary files of an earlier run: " + e.getMessage(), e);
        }
    }

    /** Discards whatever was staged and not committed, and releases the lock. */
    @Override
    public void close() {
        if (!committed) staged.values().forEach(TempFiles::discard);
        staged.clear();
        try {
            lock.release();
            lockChannel.close();
        } catch (IOException ignored) {
            // closing the channel releases the lock in any case
        }
    }
}
