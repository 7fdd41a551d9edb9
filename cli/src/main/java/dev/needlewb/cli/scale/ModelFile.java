package dev.needlewb.cli.scale;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.reports.report.InputFile;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A file a sweep's tasks read (a model, a checkpoint), named as the driver sees it with its SHA-256:
 * wherever a task runs, the file it finds (on a shared path or shipped to it) must be those bytes.
 *
 * @param path   absolute path on the machine that started the sweep
 * @param sha256 hex SHA-256 of its content there
 */
public record ModelFile(String path, long bytes, String sha256) implements Serializable {
    /** Files this process already hashed, by local path: a model is checked once per process, not per task. */
    private static final Map<Path, Hashed> CHECKED = new ConcurrentHashMap<>();

    /** A local file's hash and the size and modification time it had then. */
    private record Hashed(long bytes, FileTime modified, String sha256) {}

    /** Hashes {@code file} (and remembers the hash, so a task in this process does not hash it again). */
    public static ModelFile of(Path file) throws IOException {
        FileTime modified = Files.getLastModifiedTime(file);
        InputFile f = InputFile.of("model", file);
        CHECKED.put(f.path(), new Hashed(f.bytes(), modified, f.sha256()));
        return new ModelFile(f.path().toString(), f.bytes(), f.sha256());
    }

    /** How a report lists this file, from the hash already taken. */
    public InputFile input(String role) {
        return new InputFile(role, Path.of(path), bytes, sha256);
    }

    /** The file's name (what Spark ships it under). */
    public String name() {
        return Path.of(path).getFileName().toString();
    }

    /** {@code local} if it holds this file's bytes; fails naming both files otherwise. */
    public Path checked(Path local) throws WorkbenchException, IOException {
        if (!Files.isRegularFile(local)) {
            throw new WorkbenchException(ErrorKind.IO, local + ": no such file here (the sweep's file " + path
                    + "; on a cluster without a shared path give --ship-models)");
        }
        Path key = local.toAbsolutePath().normalize();
        Hashed found = CHECKED.get(key);
        FileTime modified = Files.getLastModifiedTime(local);
        if (found == null || Files.size(local) != found.bytes() || !modified.equals(found.modified())) {
            of(local);
            found = CHECKED.get(key);
        }
        if (!found.sha256().equals(sha256)) {
            throw new WorkbenchException(ErrorKind.FILE_CHANGED, local + ": SHA-256 " + found.sha256() + " is not the sweep's " + sha256
                    + " (" + path + ")");
        }
        return local;
    }
}
