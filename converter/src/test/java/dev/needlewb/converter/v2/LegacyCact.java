package dev.needlewb.converter.v2;

import dev.needlewb.converter.cact.CactFormat;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/** Legacy-header (0x05E12A82) files for tests, derived from current Needle 2 files. */
public final class LegacyCact {
    private LegacyCact() {}

    /**
     * The legacy file holding {@code current}'s tensors: the 20-byte header, the codebook, the
     * directory with each blob moved to the next 64-byte boundary after the previous one (the
     * first after the directory), as the legacy exporter lays them out; built from the bytes alone.
     */
    public static byte[] of(Path current) throws Exception {
        ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(current)).order(ByteOrder.LITTLE_ENDIAN);
        int n = in.getInt(CactFormat.OFF_NUM_TENSORS);
        int legacyHeader = 20, currentHeader = V2Header.HEADER_BYTES;
        long[] offsets = new long[n];
        long end = CactFormat.recordOffset(legacyHeader, n);
        for (int i = 0; i < n; i++) {
            long nbytes = in.getLong((int) V2Header.recordOffset(i) + CactFormat.REC_NBYTES);
            offsets[i] = CactFormat.align(end);
            end = offsets[i] + nbytes;
        }
        ByteBuffer out = ByteBuffer.allocate((int) end).order(ByteOrder.LITTLE_ENDIAN);
        out.putInt(0x05E12A82).putInt(n).putInt(in.getInt(CactFormat.OFF_CODEBOOK_LEN))
                .putInt(in.getInt(CactFormat.OFF_KV_WINDOW)).putInt(in.getInt(CactFormat.OFF_KV_BITS));
        out.put(in.array(), currentHeader, CactFormat.CODEBOOK_BYTES);
        for (int i = 0; i < n; i++) {
            int rec = (int) V2Header.recordOffset(i);
            int at = (int) CactFormat.recordOffset(legacyHeader, i);
            out.put(at, in.array(), rec, CactFormat.RECORD_BYTES);
            long from = in.getLong(rec + CactFormat.REC_OFFSET);
            long nbytes = in.getLong(rec + CactFormat.REC_NBYTES);
            out.putLong(at + CactFormat.REC_OFFSET, offsets[i]);
            out.put((int) offsets[i], in.array(), (int) from, (int) nbytes);
        }
        return out.array();
    }

}
