package dev.needlewb.converter.torch;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32;

/**
 * Writes a zip archive of STORED entries the way PyTorch's stream writer lays them out: every
 * entry's data starts at a multiple of 64 bytes, the gap filled by an extra field with id
 * {@code "FB"} of {@code 'Z'} bytes. Sizes and CRC-32 go in the local header (no data
 * descriptors). The archive must stay below 4 GiB (no zip64).
 */
final class TorchZipWriter {
    private static final int ALIGNMENT = 64;
    private static final int PAD_FIELD_ID = 0x4246; // "FB" little-endian
    private static final long ZIP32_LIMIT = 0xFFFFFFFFL;

    private record Written(byte[] name, long crc, long size, long offset) {}

    private final OutputStream out;
    private final List<Written> written = new ArrayList<>();
    private long position;

    TorchZipWriter(OutputStream out) {
        this.out = out;
    }

    void add(String name, byte[] data) throws IOException {
        byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
        long headerEnd = position + 30 + nameBytes.length;
        int pad = (int) Math.floorMod(-(headerEnd + 4), (long) ALIGNMENT);
        CRC32 crc = new CRC32();
        crc.update(data);
        if (position + 30 + nameBytes.length + 4 + pad + (long) data.length >= ZIP32_LIMIT) {
            throw new IOException("state dict archive would pass 4 GiB (zip64 is not written)");
        }
        ByteBuffer h = le(30);
        h.putInt(0x04034b50).putShort((short) 20).putShort((short) 0x0800).putShort((short) 0)
                .putShort((short) 0).putShort((short) 0x21) // DOS time 00:00:00, date 1980-01-01
                .putInt((int) crc.getValue()).putInt(data.length).putInt(data.length)
                .putShort((short) nameBytes.length).putShort((short) (4 + pad));
        out.write(h.array());
        out.write(nameBytes);
        ByteBuffer extra = le(4).putShort((short) PAD_FIELD_ID).putShort((short) pad);
        out.write(extra.array());
        byte[] padding = new byte[pad];
        Arrays.fill(padding, (byte) 'Z');
        out.write(padding);
        out.write(data);
        written.add(new Written(nameBytes, crc.getValue(), data.length, position));
        position += 30 + nameBytes.length + 4 + pad + data.length;
    }

    /** Writes the central directory and the end record. */
    void finish() throws IOException {
        long cenStart = position;
        for (Written w : written) {
            ByteBuffer c = le(46);
            c.putInt(0x02014b50).putShort((short) 20).putShort((short) 20).putShort((short) 0x0800)
                    .putShort((short) 0).putShort((short) 0).putShort((short) 0x21)
                    .putInt((int) w.crc).putInt((int) w.size).putInt((int) w.size)
                    .putShort((short) w.name.length).putShort((short) 0).putShort((short) 0)
                    .putShort((short) 0).putShort((short) 0).putInt(0).putInt((int) w.offset);
            out.write(c.array());
            out.write(w.name);
            position += 46 + w.name.length;
        }
        if (written.size() >= 0xFFFF || position >= ZIP32_LIMIT) throw new IOException("state dict archive needs zip64 (not written)");
        ByteBuffer e = le(22);
        e.putInt(0x06054b50).putShort((short) 0).putShort((short) 0)
                .putShort((short) written.size()).putShort((short) written.size())
                .putInt((int) (position - cenStart)).putInt((int) cenStart).putShort((short) 0);
        out.write(e.array());
    }

    private static ByteBuffer le(int n) {
        return ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
    }
}
