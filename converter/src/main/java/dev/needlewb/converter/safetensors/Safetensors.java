package dev.needlewb.converter.safetensors;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.io.NpyArray;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The safetensors format: an 8-byte little-endian header length, a JSON header naming each
 * tensor's dtype, shape and [begin, end) byte range in the data section, then the data. The
 * header is validated completely (no key twice, every range inside the data, ranges
 * non-overlapping and covering the data without holes, sizes equal to dtype x shape) before any
 * tensor is copied.
 */
public final class Safetensors {
    /** Headers larger than this are refused (the reference implementation uses the same limit). */
    static final long MAX_HEADER_BYTES = 100L << 20;
    /** The file is read into one Java array, and a widened BF16 tensor into another: both stop just short of 2^31 bytes. */
    static final long MAX_ARRAY_BYTES = Integer.MAX_VALUE - 8;
    /**
     * Parsers that disagree on a repeated key (first wins, last wins, refuse) read different
     * tensors from one file: a repeated key is refused, as the reference implementation does.
     */
    private static final ObjectMapper JSON = new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private Safetensors() {}

    /**
     * A file's tensors (in data order), where each one's bytes are in the file, and its string
     * metadata.
     */
    public record Contents(Map<String, NpyArray> tensors, Map<String, Stored> stored, Map<String, String> metadata) {}

    /** Where a tensor's data lies in the file: its first byte and the stored bytes per element (BF16: 2, widened to 4). */
    public record Stored(long offset, int itemBytes) {
        /** The file offset of element {@code element}. */
        public long byteOf(long element) {
            return offset + element * itemBytes;
        }
    }

    private record Entry(String name, SafetensorsDtype dtype, int[] shape, long begin, long end) {}

    public static Contents read(Path file) throws IOException, FormatException {
        long size = Files.size(file);
        if (size < 8) throw new FormatException(ErrorKind.TRUNCATED, file, 0, "truncated: " + size + " bytes, a safetensors file starts with an 8-byte header length");
        if (size > MAX_ARRAY_BYTES) {
            throw new FormatException(ErrorKind.TOO_LARGE, file, FormatException.NO_OFFSET, "file of " + size + " bytes is larger than the "
                    + MAX_ARRAY_BYTES + " bytes the reader holds in one array");
        }
        return parse(Files.readAllBytes(file), file);
    }

    public static Contents parse(byte[] bytes, Path file) throws FormatException {
        if (bytes.length < 8) throw new FormatException(ErrorKind.TRUNCATED, file, 0, "truncated: a safetensors file starts with an 8-byte header length");
        long headerLen = ByteBuffer.wrap(bytes, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        if (headerLen < 2 || headerLen > MAX_HEADER_BYTES || headerLen > bytes.length - 8L) {
            throw new FormatException(ErrorKind.BAD_HEADER_FIELD, file, 0, "header length " + Long.toUnsignedString(headerLen)
                    + " does not fit the file (" + bytes.length + " bytes, limit " + MAX_HEADER_BYTES + ")");
        }
        JsonNode header;
        try {
            header = JSON.readTree(new String(bytes, 8, (int) headerLen, StandardCharsets.UTF_8));
        } catch (JsonProcessingException e) {
            // the header is read as text: the location is a character count, a byte count for ASCII keys
            long at = e.getLocation() == null || e.getLocation().getCharOffset() < 0 ? 0 : e.getLocation().getCharOffset();
            throw new FormatException(ErrorKind.BAD_JSON, file, 8 + at, "header is not valid JSON: " + e.getOriginalMessage());
        }
        if (header == null || !header.isObject()) throw new FormatException(ErrorKind.BAD_HEADER_FIELD, file, 8, "header is not a JSON object");
        long dataStart = 8 + headerLen;
        long dataLen = bytes.length - dataStart;

        Map<String, String> metadata = new LinkedHashMap<>();
        List<Entry> entries = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = header.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> f = it.next();
            if (f.getKey().equals("__metadata__")) {
                readMetadata(file, f.getValue(), metadata);
            } else {
                entries.add(entry(file, f.getKey(), f.getValue(), dataLen));
            }
        }
        entries.sort(Comparator.comparingLong(Entry::begin).thenComparingLong(Entry::end));
        long expected = 0;
        for (Entry e : entries) {
            if (e.begin() != expected) {
                throw new FormatException(e.begin() < expected ? ErrorKind.OVERLAP : ErrorKind.BAD_OFFSET, file, dataStart + e.begin(), "tensor '" + e.name() + "' starts at data offset "
                        + e.begin() + " but the previous tensor ends at " + expected
                        + (e.begin() < expected ? " (overlap)" : " (hole)"));
            }
            expected = e.end();
        }
        if (expected != dataLen) {
            throw new FormatException(ErrorKind.TRAILING_BYTES, file, dataStart + expected, "the data section holds " + dataLen
                    + " bytes but the tensors cover " + expected);
        }
        Map<String, NpyArray> tensors = new LinkedHashMap<>();
        Map<String, Stored> stored = new LinkedHashMap<>();
        for (Entry e : entries) {
            tensors.put(e.name(), toArray(bytes, (int) (dataStart + e.begin()), e));
            stored.put(e.name(), new Stored(dataStart + e.begin(), e.dtype().storedBytes));
        }
        return new Contents(tensors, stored, metadata);
    }

    private static void readMetadata(Path file, JsonNode node, Map<String, String> out) throws FormatException {
        if (!node.isObject()) throw new FormatException(ErrorKind.BAD_HEADER_FIELD, file, 8, "__metadata__ must be an object of strings");
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> m = it.next();
            if (!m.getValue().isTextual()) throw new FormatException(ErrorKind.BAD_HEADER_FIELD, file, 8, "__metadata__ value '" + m.getKey() + "' is not a string");
            out.put(m.getKey(), m.getValue().asText());
        }
    }

    private static Entry entry(Path file, String name, JsonNode node, long dataLen) throws FormatException {
        String where = "tensor '" + name + "': ";
        if (!node.isObject()) throw new FormatException(ErrorKind.BAD_HEADER_FIELD, file, 8, where + "entry is not an object");
        JsonNode dtypeNode = node.get("dtype"), shapeNode = node.get("shape"), offsets = node.get("data_offsets");
        if (dtypeNode == null || !dtypeNode.isTextual()) throw new FormatException(ErrorKind.BAD_HEADER_FIELD, file, 8, where + "missing dtype");
        SafetensorsDtype dtype = SafetensorsDtype.named(dtypeNode.asText())
                .orElseThrow(() -> new FormatException(ErrorKind.UNSUPPORTED_DTYPE, file, 8, where + "unsupported dtype " + dtypeNode.asText()));
        if (shapeNode == null || !shapeNode.isArray()) throw new FormatException(ErrorKind.BAD_HEADER_FIELD, file, 8, where + "missing shape");
        int[] shape = new int[shapeNode.size()];
        long count = 1;
        for (int i = 0; i < shape.length; i++) {
            JsonNode d = shapeNode.get(i);
            if (!d.canConvertToLong() || !d.isIntegralNumber() || d.asLong() < 0 || d.asLong() > Integer.MAX_VALUE) {
                throw new FormatException(ErrorKind.BAD_HEADER_FIELD, file, 8, where + "bad dimension " + d);
            }
            shape[i] = (int) d.asLong();
            count = saturatingProduct(count, shape[i]);
        }
        if (offsets == null || !offsets.isArray() || offsets.size() != 2
                || !offsets.get(0).isIntegralNumber() || !offsets.get(1).isIntegralNumber()
                || !offsets.get(0).canConvertToLong() || !offsets.get(1).canConvertToLong()) {
            throw new FormatException(ErrorKind.BAD_HEADER_FIELD, file, 8, where + "data_offsets must be [begin, end]");
        }
        long begin = offsets.get(0).asLong(), end = offsets.get(1).asLong();
        if (begin < 0 || end < begin || end > dataLen) {
            throw new FormatException(ErrorKind.BAD_OFFSET, file, 8, where + "data_offsets [" + begin + ", " + end + "] outside the "
                    + dataLen + "-byte data section");
        }
        if (count > dataLen || count * dtype.storedBytes != end - begin) {
            throw new FormatException(ErrorKind.SHAPE_MISMATCH, file, 8, where + dtype + " shape " + java.util.Arrays.toString(shape)
                    + " does not match its " + (end - begin) + " bytes");
        }
        if (dtype == SafetensorsDtype.BF16 && count * 4 > MAX_ARRAY_BYTES) {
            throw new FormatException(ErrorKind.TOO_LARGE, file, 8, where + "BF16 shape " + java.util.Arrays.toString(shape) + " widens to "
                    + count * 4 + " float32 bytes, more than one array holds");
        }
        return new Entry(name, dtype, shape, begin, end);
    }

    private static long saturatingProduct(long a, long b) {
        long hi = Math.multiplyHigh(a, b), lo = a * b;
        return hi != 0 || lo < 0 ? Long.MAX_VALUE : lo;
    }

    private static NpyArray toArray(byte[] bytes, int start, Entry e) {
        int n = (int) (e.end() - e.begin());
        if (e.dtype() != SafetensorsDtype.BF16) {
            return new NpyArray(e.dtype().descr, e.shape(), java.util.Arrays.copyOfRange(bytes, start, start + n));
        }
        ByteBuffer out = ByteBuffer.allocate(n * 2).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i += 2) {
            int bf = (bytes[start + i] & 0xFF) | (bytes[start + i + 1] & 0xFF) << 8;
            out.putFloat(Float.intBitsToFloat(bf << 16));
        }
        return new NpyArray("<f4", e.shape(), out.array());
    }

    /** Writes tensors in the given order, contiguous, with the header padded to a multiple of 8 bytes. */
    public static void write(OutputStream out, Map<String, NpyArray> tensors, Map<String, String> metadata) throws IOException {
        ObjectNode header = JSON.createObjectNode();
        if (!metadata.isEmpty()) {
            ObjectNode meta = header.putObject("__metadata__");
            metadata.forEach(meta::put);
        }
        long offset = 0;
        for (Map.Entry<String, NpyArray> t : tensors.entrySet()) {
            NpyArray a = t.getValue();
            SafetensorsDtype dtype = SafetensorsDtype.forDescr(a.descr())
                    .orElseThrow(() -> new IllegalArgumentException("no safetensors dtype for " + a.descr()));
            ObjectNode n = header.putObject(t.getKey());
            n.put("dtype", dtype.name());
            var shape = n.putArray("shape");
            for (int d : a.shape()) shape.add(d);
            var off = n.putArray("data_offsets");
            off.add(offset);
            off.add(offset + a.data().length);
            offset += a.data().length;
        }
        byte[] json = JSON.writeValueAsBytes(header);
        int padded = (json.length + 7) / 8 * 8;
        ByteBuffer len = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(padded);
        out.write(len.array());
        out.write(json);
        for (int i = json.length; i < padded; i++) out.write(' ');
        for (NpyArray a : tensors.values()) out.write(a.data());
    }
}
