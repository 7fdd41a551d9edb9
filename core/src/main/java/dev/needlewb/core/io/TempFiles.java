package dev.needlewb.core.io;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The temporary files outputs are written to before they are renamed over their targets: named
 * {@code .TARGET.<16 hex digits>.tmp} in the target's folder, so the temporary files of one target
 * can be told from everything else, and deleted by a shutdown hook when the JVM is asked to stop
 * (SIGTERM, SIGINT, System.exit). A file still registered when the hook runs was never renamed.
 * Renames that must all happen (a commit of several files) hold {@link #COMMIT}; the hook waits
 * for them, then refuses any further rename, so a stop never leaves half a commit behind.
 */
public final class TempFiles {
    /** Held while temporary files are renamed over their targets, and by the shutdown hook. */
    static final Object COMMIT = new Object();
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Set<Path> LIVE = new LinkedHashSet<>();
    private static boolean hooked;
    private static boolean stopping;

    private TempFiles() {}

    /** Creates a new, empty temporary file beside {@code target} and registers it for deletion on shutdown. */
    static Path create(Path target) throws IOException, WorkbenchException {
        Path dir = target.toAbsolutePath().getParent();
        byte[] id = new byte[8];
        for (int attempt = 0; ; attempt++) {
            RANDOM.nextBytes(id);
            Path temp = dir.resolve("." + target.getFileName() + "." + HexFormat.of().formatHex(id) + ".tmp");
            synchronized (COMMIT) {
                if (stopping) throw new WorkbenchException(ErrorKind.IO, target + ": not written: the JVM is shutting down");
                try {
                    Files.createFile(temp);
                } catch (FileAlreadyExistsException e) {
                    if (attempt < 3) continue;
                    throw e;
                }
                LIVE.add(temp);
                if (!hooked) {
                    Runtime.getRuntime().addShutdownHook(new Thread(TempFiles::deleteAll, "needle-wb temp files"));
                    hooked = true;
                }
                return temp;
            }
        }
    }

    /** Forgets {@code temp} (renamed, or deleted by its writer). */
    static void release(Path temp) {
        synchronized (COMMIT) {
            LIVE.remove(temp);
        }
    }

    /** Fails once the shutdown hook has run: a rename must not follow the deletion of its source. Call holding {@link #COMMIT}. */
    static void checkRunning(Path target) throws WorkbenchException {
        if (stopping) throw new WorkbenchException(ErrorKind.IO, target + ": not written: the JVM is shutting down");
    }

    /** Deletes {@code temp} if present and forgets it; a failure is not reported (an earlier error is the one that matters). */
    static void discard(Path temp) {
        try {
            Files.deleteIfExists(temp);
        } catch (IOException ignored) {
            // what is left is a .tmp file the next writer of this target removes
        }
        release(temp);
    }

    /** Whether {@code name} is a temporary file name of {@code target}. */
    static boolean isTempOf(String name, Path target) {
        return pattern(target).matcher(name).matches();
    }

    /** The temporary files of {@code target} in its folder: left by a run that was killed, when no writer holds the target. */
    static List<Path> leftOver(Path target) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        Pattern p = pattern(target);
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, ".*.tmp")) {
            for (Path f : files) {
                if (p.matcher(f.getFileName().toString()).matches()) out.add(f);
            }
        }
        return out;
    }

    private static Pattern pattern(Path target) {
        return Pattern.compile("\\." + Pattern.quote(target.getFileName().toString()) + "\\.[0-9a-f]{16}\\.tmp");
    }

    private static void deleteAll() {
        synchronized (COMMIT) {
            stopping = true;
            for (Path temp : LIVE) {
                try {
                    Files.deleteIfExists(temp);
                } catch (IOException ignored) {
                    // nothing more can be done while the JVM stops; the next writer removes it
                }
            }
            LIVE.clear();
        }
    }
}
