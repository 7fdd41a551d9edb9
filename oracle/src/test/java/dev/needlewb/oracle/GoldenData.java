package dev.needlewb.oracle;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The upstream golden data for oracle tests, read from {@code ../shared/golden} next to the
 * project root. A private npz/npy 1.0 reader: the oracle must not depend on the converter's.
 */
final class GoldenData {
    private static final Pattern DESCR = Pattern.compile("'descr':\\s*'([^']+)'");
    private static final Pattern SHAPE = Pattern.compile("'shape':\\s*\\(([^)]*)\\)");

    private GoldenData() {}

    /** One npy array: its dtype string, shape and little-endian C-order data. */
    record Array(String dtype, int[] shape, ByteBuffer data) {
        float[] floats() {
            expect("<f4");
            float[] out = new float[data.remaining() / 4];
            data.duplicate().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
            return out;
        }

        short[] halfBits() {
            expect("<f2");
            short[] out = new short[data.remaining() / 2];
            data.duplicate().order(ByteOrder.LITTLE_ENDIAN).asShortBuffer().get(out);
            return out;
        }

        int[] ints() {
            expect("<i4");
            int[] out = new int[data.remaining() / 4];
            data.duplicate().order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(out);
            return out;
        }

        int[] unsignedBytes() {
            expect("|u1");
            int[] out = new int[data.remaining()];
            for (int i = 0; i < out.length; i++) out[i] = data.get(data.position() + i) & 0xFF;
            return out;
        }

        private void expect(String d) {
            if (!dtype.equals(d)) fail("golden array has dtype " + dtype + ", expected " + d);
        }
    }

    static Path dir() {
        Path start = Path.of("").toAbsolutePath();
        for (Path p = start; p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("pom.xml")) && Files.isDirectory(p.resolve("converter"))) {
                Path golden = p.resolve("../shared/golden").normalize();
                if (!Files.isDirectory(golden)) {
                    fail("golden data missing: expected upstream outputs at " + golden
                            + " (../shared/golden relative to the project root " + p + ")");
                }
                return golden;
            }
        }
        return fail("cannot find the project root (a folder with pom.xml and converter/) above " + start);
    }

    static Path file(String relative) {
        Path p = dir().resolve(relative);
        if (!Files.isRegularFile(p)) fail("golden file missing: " + p);
        return p;
    }

    static JsonNode json(String relative) {
        try {
            return new ObjectMapper().readTree(file(relative).toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** All arrays of an npz archive, keyed without the {@code .npy} suffix. */
    static Map<String, Array> npz(String relative) {
        Map<String, Array> out = new HashMap<>();
        try (ZipFile zip = new ZipFile(file(relative).toFile())) {
            for (ZipEntry e : zip.stream().toList()) {
                try (InputStream in = zip.getInputStream(e)) {
                    out.put(e.getName().replaceFirst("\\.npy$", ""), npy(in.readAllBytes(), e.getName()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    static Array npy(byte[] bytes, String what) {
        byte[] magic = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
        if (bytes.length < 10 || !Arrays.equals(Arrays.copyOf(bytes, 6), magic) || bytes[6] != 1) {
            fail(what + ": not an npy 1.0 file");
        }
        int headerLen = (bytes[8] & 0xFF) | (bytes[9] & 0xFF) << 8;
        String header = new String(bytes, 10, headerLen, StandardCharsets.ISO_8859_1);
        Matcher d = DESCR.matcher(header), s = SHAPE.matcher(header);
        if (!d.find() || !s.find() || !header.contains("'fortran_order': False")) {
            fail(what + ": unexpected npy header " + header);
        }
        int[] shape = Arrays.stream(s.group(1).split(",")).map(String::trim).filter(t -> !t.isEmpty())
                .mapToInt(Integer::parseInt).toArray();
        return new Array(d.group(1), shape, ByteBuffer.wrap(bytes, 10 + headerLen, bytes.length - 10 - headerLen).slice());
    }
}
