package dev.needlewb.converter.io;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/** A {@code .npz} archive: a zip of {@code <key>.npy} entries. Reads eagerly into memory. */
public final class Npz {
    private Npz() {}

    public static Map<String, NpyArray> read(Path path) throws IOException {
        Map<String, NpyArray> arrays = new LinkedHashMap<>();
        try (ZipFile zip = new ZipFile(path.toFile())) {
            for (ZipEntry e : Collections.list(zip.entries())) {
                String name = e.getName();
                if (!name.endsWith(".npy")) continue;
                byte[] bytes;
                try (var in = zip.getInputStream(e)) {
                    bytes = in.readAllBytes();
                }
                String key = name.substring(0, name.length() - 4);
                arrays.put(key, Npy.parse(bytes, path.getFileName() + ":" + name));
            }
        }
        return arrays;
    }

    public static void write(OutputStream out, Map<String, NpyArray> arrays) throws IOException {
        ZipOutputStream zip = new ZipOutputStream(out);
        for (var e : arrays.entrySet()) {
            zip.putNextEntry(new ZipEntry(e.getKey() + ".npy"));
            zip.write(Npy.serialize(e.getValue()));
            zip.closeEntry();
        }
        zip.finish();
    }
}
