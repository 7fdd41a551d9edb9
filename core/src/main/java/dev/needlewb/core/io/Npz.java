package dev.needlewb.core.io;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * A {@code .npz} archive: a zip of {@code <key>.npy} entries. Reads eagerly into memory (stored or
 * deflated entries); writes stored entries, as {@code numpy.savez} does: deflating megabytes of float64
 * noise took most of a second and saved little.
 */
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
            byte[] npy = Npy.serialize(e.getValue());
            ZipEntry entry = new ZipEntry(e.getKey() + ".npy");
            entry.setMethod(ZipEntry.STORED);
            entry.setSize(npy.length);
            entry.setCompressedSize(npy.length);
            CRC32 crc = new CRC32();
            crc.update(npy);
            entry.setCrc(crc.getValue());
            zip.putNextEntry(entry);
            zip.write(npy);
            zip.closeEntry();
        }
        zip.finish();
    }
}
