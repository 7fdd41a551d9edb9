package dev.needlewb.converter.v2;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.converter.cact.CactBytes;
import dev.needlewb.converter.cact.CactFormat;
import dev.needlewb.converter.cact.HeaderCodec;
import dev.needlewb.converter.cact.HeaderViolation;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.generation.ModelGeometry;
import dev.needlewb.core.v2.Geometry;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.SequencedMap;

/**
 * Needle 2's legacy header, tag 0x05E12A82 (upstream v2.0.1-2.0.2 export.py: {@code _HDR_FMT =
 * "<IIIII"}, tag, num_tensors, codebook_len, kv_window, kv_bits, then the codebook and the same
 * directory and tensor order as 0x05E12A83). It stores no geometry: the user gives it (a
 * checkpoint's or a JSON config), and the header's own kv_window and kv_bits replace the
 * config's. Read only: writers write the current header.
 */
final class V2LegacyHeader implements HeaderCodec {
    /** {@code struct.calcsize("<IIIII")}. */
    static final int HEADER_BYTES = 20;

    private final Geometry supplied;

    V2LegacyHeader(Geometry supplied) {
        this.supplied = supplied;
    }

    @Override
    public int headerBytes() {
        return HEADER_BYTES;
    }

    @Override
    public Geometry read(MemorySegment bytes, Path file) throws FormatException {
        CactBytes b = new CactBytes(bytes, file, HEADER_BYTES);
        Geometry g = supplied.withKv(b.i32(CactFormat.OFF_KV_WINDOW), b.i32(CactFormat.OFF_KV_BITS));
        HeaderViolation v = GeometryRules.check(g);
        if (v != null) {
            // the two fields the legacy header holds are at the same offsets as in the current one
            boolean stored = v.headerOffset() == CactFormat.OFF_KV_WINDOW || v.headerOffset() == CactFormat.OFF_KV_BITS;
            throw new FormatException(stored ? ErrorKind.BAD_HEADER_FIELD : ErrorKind.BAD_GEOMETRY, file, stored ? v.headerOffset() : FormatException.NO_OFFSET,
                    (stored ? "header: " : "geometry given for the legacy header: ") + v.problem());
        }
        return g;
    }

    @Override
    public String problem(ModelGeometry g) {
        return V2Header.INSTANCE.problem(g);
    }

    /** Never called: a file is always written with the generation's current header ({@link V2Cact#header()}). */
    @Override
    public void write(ByteBuffer out, ModelGeometry g, int numTensors) {
        throw new UnsupportedOperationException("the legacy 0x05E12A82 header is read, never written");
    }

    @Override
    public SequencedMap<String, Object> fields(ModelGeometry g) {
        return V2Header.INSTANCE.fields(g);
    }
}
