package dev.needlewb.core.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NpzTest {
    @TempDir
    Path dir;

    @Test
    void writesStoredEntriesThatReadBackExactly() throws Exception {
        Map<String, NpyArray> arrays = new LinkedHashMap<>();
        arrays.put("logits", NpyArray.ofDoubles(new int[] {2, 3}, new double[] {1.5, -0.0, Double.MIN_VALUE, 3e300, Double.NaN, -7}));
        arrays.put("tokens", NpyArray.ofInts(new int[] {4}, new int[] {1, 2, 3, 40000}));
        Path file = dir.resolve("a.npz");
        try (OutputStream out = Files.newOutputStream(file)) {
            Npz.write(out, arrays);
        }
        try (ZipFile zip = new ZipFile(file.toFile())) {
            for (ZipEntry e : Collections.list(zip.entries())) {
                // numpy.savez's layout: no compression, sizes and CRC known up front
                assertThat(e.getMethod()).as(e.getName()).isEqualTo(ZipEntry.STORED);
                assertThat(e.getCompressedSize()).isEqualTo(e.getSize());
            }
        }
        Map<String, NpyArray> back = Npz.read(file);
        assertThat(back.keySet()).containsExactly("logits", "tokens");
        for (String key : arrays.keySet()) {
            assertThat(back.get(key).data()).isEqualTo(arrays.get(key).data());
            assertThat(back.get(key).shape()).isEqualTo(arrays.get(key).shape());
            assertThat(back.get(key).descr()).isEqualTo(arrays.get(key).descr());
        }
    }
}
