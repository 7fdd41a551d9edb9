package dev.needlewb.converter.flax;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.io.AtomicFileWriter;
import dev.needlewb.core.io.FileOutput;
import dev.needlewb.core.io.NpyArray;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Writes a checkpoint as upstream's {@code run.py} lays it out ({@code format_version},
 * {@code params} as a nested dict, {@code config} with tuples, {@code step}, {@code run}), as a
 * protocol-4 pickle that Python's stock {@code pickle.load} reads back with numpy 1.x and 2.x.
 * The file appears atomically ({@link AtomicFileWriter}).
 */
public final class FlaxCheckpointWriter {
    private FlaxCheckpointWriter() {}

    /**
     * @param inputs the files the checkpoint was made from; writing over one of them is refused
     */
    public static void write(FlaxCheckpoint ckpt, Path out, Path... inputs) throws WorkbenchException {
        write(ckpt, out, FileOutput.ATOMIC, inputs);
    }

    /** {@link #write(FlaxCheckpoint, Path, Path...)} through {@code output} (at once, or staged in a set). */
    public static void write(FlaxCheckpoint ckpt, Path out, FileOutput output, Path... inputs) throws WorkbenchException {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("format_version", (long) ckpt.formatVersion());
        root.put("params", nest(ckpt.params()));
        root.put("config", ckpt.config());
        root.put("step", ckpt.step());
        root.put("run", ckpt.run());
        output.write(out, channel -> {
            OutputStream stream = new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16);
            new PickleWriter(stream).writePickle(root, Set.of("config"));
            stream.flush();
        }, inputs);
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
}
