package dev.needlewb.converter.flax;

import dev.needlewb.converter.WorkbenchException;
import dev.needlewb.converter.io.NpyArray;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Writes a checkpoint as upstream's {@code run.py} lays it out ({@code format_version},
 * {@code params} as a nested dict, {@code config} with tuples, {@code step}, {@code run}), as a
 * protocol-4 pickle that Python's stock {@code pickle.load} reads back with numpy 2. The file
 * appears atomically: written to a temporary file in the target folder, forced to disk, renamed.
 */
public final class FlaxCheckpointWriter {
    private FlaxCheckpointWriter() {}

    /**
     * @param inputs the files the checkpoint was made from; writing over one of them is refused
     */
    public static void write(FlaxCheckpoint ckpt, Path out, Path... inputs) throws WorkbenchException {
        Path target = out.toAbsolutePath().normalize();
        for (Path in : inputs) {
            if (isSameFile(target, in)) throw new WorkbenchException(out + ": refusing to overwrite the input " + in);
        }
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("format_version", (long) ckpt.formatVersion());
        root.put("params", nest(ckpt.params()));
        root.put("config", ckpt.config());
        root.put("step", ckpt.step());
        root.put("run", ckpt.run());
        writeAtomically(target, stream -> new PickleWriter(stream).writePickle(root, Set.of("config")));
    }

    private static boolean isSameFile(Path target, Path input) throws WorkbenchException {
        try {
            if (Files.exists(target) && Files.exists(input)) return Files.isSameFile(target, input);
        } catch (IOException e) {
            throw new WorkbenchException(target + ": cannot compare with input " + input + " (" + e.getMessage() + ")", e);
        }
        return target.equals(input.toAbsolutePath().normalize());
    }

    /** {@code a/b/c -> {a: {b: {c: ...}}}}, keeping the tree order of the flat map. */
    private static Map<String, Object> nest(Map<String, NpyArray> flat) {
        Map<String, Object> root = new LinkedHashMap<>();
        for (var e : flat.entrySet()) {
            String[] parts = e.getKey().split("/");
            Map<String, Object> node = root;
            for (int i = 0; i < parts.length - 1; i++) {
                @SuppressWarnings("unchecked")
                Map<String, Object> child = (Map<String, Object>) node.computeIfAbsent(parts[i], k -> new LinkedHashMap<String, Object>());
                node = child;
            }
            node.put(parts[parts.length - 1], e.getValue());
        }
        return root;
    }

    private interface Body {
        void writeTo(OutputStream out) throws IOException;
    }

    /** Temp file in the target folder, fsync, atomic rename; the temp file is removed on failure. */
    private static void writeAtomically(Path target, Body body) throws WorkbenchException {
        Path dir = target.getParent();
        Path tmp = null;
        try {
            tmp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp");
            // createTempFile makes an owner-only file; a checkpoint is an ordinary readable file.
            if (Files.getFileStore(tmp).supportsFileAttributeView("posix")) {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
            }
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                OutputStream os = new BufferedOutputStream(Channels.newOutputStream(ch), 1 << 16);
                body.writeTo(os);
                os.flush();
                ch.force(true);
            }
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            tmp = null;
        } catch (IOException e) {
            throw new WorkbenchException(target + ": cannot write (" + e.getMessage() + ")", e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // the write already failed; that error is the one to report
                }
            }
        }
    }
}
