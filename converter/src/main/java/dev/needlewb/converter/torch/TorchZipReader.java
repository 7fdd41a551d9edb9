package dev.needlewb.converter.torch;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Reads a PyTorch zip archive from its central directory, trusting nothing: entry names must be
 * relative paths without {@code ..} or empty segments under one shared top-level folder, every
 * offset and size is bounded by the file (the central directory before the end record, each
 * entry's data before the central directory) before anything is allocated, only STORED and
 * DEFLATE entries are accepted, and each entry's CRC-32 is checked when it is read. No zip64
 * (torch writes it only past 4 GiB), no multi-disk archives, no encryption.
 */
final class TorchZipReader {
    private static final int EOCD_SIG = 0x06054b50, CEN_SIG = 0x02014b50, LOC_SIG = 0x04034b50;
    private static final int EOCD_LEN = 22, CEN_LEN = 46, LOC_LEN = 30;
    private static final int STORED = 0, DEFLATED = 8;

    /** One central-directory entry. */
    record Entry(String name, int method, long crc, long compressedSize, long size, long localOffset, long cenOffset) {}

    private final Path file;
    private final SeekableByteChannel channel;
    private final long fileSize;
    private final Map<String, Entry> entries = new LinkedHashMap<>();
    private String root;
    private long cenStart;

    private TorchZipReader(Path file, SeekableByteChannel channel) throws IOException {
        this.file = file;
        this.channel = channel;
        this.fileSize = channel.size();
    }

    static TorchZipReader open(Path file, SeekableByteChannel channel) throws IOException, FormatException {
        TorchZipReader r = new TorchZipReader(file, channel);
        r.readDirectory();
        return r;
    }

    /** The top-level folder every entry lives in (torch names it after the file or "archive"). */
    String root() {
        return root;
    }

    /** The entry {@code root/relative}, if present. */
    Optional<Entry> entry(String relative) {
        return Optional.ofNullable(entries.get(root + "/" + relative));
    }

    private void readDirectory() throws IOException, FormatException {
        if (fileSize < EOCD_LEN) throw fail(ErrorKind.TRUNCATED, 0, "file of " + fileSize + " bytes is too short for a zip archive (truncated or not a .pt)");
        long eocd = findEndRecord();
        ByteBuffer e = read(eocd, EOCD_LEN);
        int disk = e.getShort(4) & 0xFFFF, cenDisk = e.getShort(6) & 0xFFFF;
        int countOnDisk = e.getShort(8) & 0xFFFF, count = e.getShort(10) & 0xFFFF;
        long cenSize = e.getInt(12) & 0xFFFFFFFFL;
        cenStart = e.getInt(16) & 0xFFFFFFFFL;
        if (disk != 0 || cenDisk != 0 || countOnDisk != count) throw fail(ErrorKind.UNSUPPORTED, eocd, "multi-disk zip archives are not supported");
        if (cenStart == 0xFFFFFFFFL || cenSize == 0xFFFFFFFFL || count == 0xFFFF) throw fail(ErrorKind.UNSUPPORTED, eocd, "zip64 archives are not supported");
        if (cenStart + cenSize > eocd) {
            throw fail(ErrorKind.BAD_OFFSET, eocd, "central directory (" + cenSize + " bytes at " + cenStart + ") runs past the end record at byte " + eocd);
        }
        if ((long) count * CEN_LEN > cenSize) throw fail(ErrorKind.BAD_ARCHIVE, eocd, count + " entries cannot fit a central directory of " + cenSize + " bytes");
        ByteBuffer cen = read(cenStart, (int) cenSize);
        int p = 0;
        for (int i = 0; i < count; i++) {
            long at = cenStart + p;
            if (p + CEN_LEN > cenSize) throw fail(ErrorKind.TRUNCATED, at, "central directory entry " + i + " is truncated");
            if (cen.getInt(p) != CEN_SIG) throw fail(ErrorKind.BAD_ARCHIVE, at, "central directory entry " + i + " has a bad signature");
            int flags = cen.getShort(p + 8) & 0xFFFF, method = cen.getShort(p + 10) & 0xFFFF;
            long crc = cen.getInt(p + 16) & 0xFFFFFFFFL;
            long csize = cen.getInt(p + 20) & 0xFFFFFFFFL, usize = cen.getInt(p + 24) & 0xFFFFFFFFL;
            int nameLen = cen.getShort(p + 28) & 0xFFFF, extraLen = cen.getShort(p + 30) & 0xFFFF, commentLen = cen.getShort(p + 32) & 0xFFFF;
            long local = cen.getInt(p + 42) & 0xFFFFFFFFL;
            if (p + CEN_LEN + (long) nameLen + extraLen + commentLen > cenSize) throw fail(ErrorKind.BAD_OFFSET, at, "central directory entry " + i + " runs past the directory");
            String name = utf8(cen, p + CEN_LEN, nameLen, at);
            p += CEN_LEN + nameLen + extraLen + commentLen;
            checkName(name, at);
            if ((flags & 1) != 0) throw fail(ErrorKind.UNSUPPORTED, at, "entry " + name + " is encrypted");
            if (method != STORED && method != DEFLATED) throw fail(ErrorKind.UNSUPPORTED, at, "entry " + name + " uses compression method " + method + " (only STORED and DEFLATE)");
            if (method == STORED && csize != usize) throw fail(ErrorKind.BAD_ARCHIVE, at, "STORED entry " + name + " has compressed size " + csize + " but size " + usize);
            if (csize == 0xFFFFFFFFL || usize == 0xFFFFFFFFL || local == 0xFFFFFFFFL) throw fail(ErrorKind.UNSUPPORTED, at, "entry " + name + " needs zip64, not supported");
            if (local + LOC_LEN + nameLen + csize > cenStart) {
                throw fail(ErrorKind.BAD_OFFSET, at, "entry " + name + " (" + csize + " bytes at local header " + local + ") runs past the central directory at byte " + cenStart);
            }
            // DEFLATE expands at most ~1032:1; a larger claimed size is a lie meant to make us allocate.
            if (usize > Math.max(csize, 1) * 1032L + 64) throw fail(ErrorKind.TOO_LARGE, at, "entry " + name + " claims " + usize + " bytes from " + csize + " compressed");
            if (entries.put(name, new Entry(name, method, crc, csize, usize, local, at)) != null) throw fail(ErrorKind.BAD_ARCHIVE, at, "duplicate entry " + name);
        }
        if (entries.isEmpty()) throw fail(ErrorKind.BAD_ARCHIVE, eocd, "zip archive has no entries");
    }

    /** The end record is the last 22 bytes unless a comment (at most 65535 bytes) follows it. */
    private long findEndRecord() throws IOException, FormatException {
        long from = Math.max(0, fileSize - EOCD_LEN - 0xFFFF);
        ByteBuffer tail = read(from, (int) (fileSize - from));
        for (int i = tail.limit() - EOCD_LEN; i >= 0; i--) {
            if (tail.getInt(i) == EOCD_SIG && i + EOCD_LEN + (tail.getShort(i + 20) & 0xFFFF) == tail.limit()) return from + i;
        }
        throw fail(ErrorKind.TRUNCATED, fileSize, "no zip end-of-central-directory record (truncated, or not a torch .pt zip)");
    }

    private void checkName(String name, long at) throws FormatException {
        if (name.isEmpty() || name.startsWith("/") || name.indexOf('\\') >= 0 || name.indexOf('\0') >= 0 || name.matches("^[A-Za-z]:.*")) {
            throw fail(ErrorKind.BAD_ARCHIVE, at, "entry name '" + printable(name) + "' is not a relative path");
        }
        String[] parts = name.split("/", -1);
        for (String part : parts) {
            if (part.isEmpty() || part.equals("..") || part.equals(".")) throw fail(ErrorKind.BAD_ARCHIVE, at, "entry name '" + printable(name) + "' has an empty, '.' or '..' segment");
        }
        if (parts.length < 2) throw fail(ErrorKind.BAD_ARCHIVE, at, "entry '" + printable(name) + "' is not inside the archive's top-level folder");
        if (root == null) root = parts[0];
        else if (!root.equals(parts[0])) throw fail(ErrorKind.BAD_ARCHIVE, at, "entry '" + printable(name) + "' is outside the top-level folder '" + root + "'");
    }

    /** Reads an entry whole, checking its local header, its size and its CRC-32. */
    byte[] readEntry(Entry entry) throws IOException, FormatException {
        if (entry.size > Integer.MAX_VALUE - 8) throw fail(ErrorKind.TOO_LARGE, entry.cenOffset, "entry " + entry.name + " of " + entry.size + " bytes is larger than 2 GiB");
        ByteBuffer loc = read(entry.localOffset, LOC_LEN);
        if (loc.getInt(0) != LOC_SIG) throw fail(ErrorKind.BAD_ARCHIVE, entry.localOffset, "entry " + entry.name + " has a bad local header signature");
        int nameLen = loc.getShort(26) & 0xFFFF, extraLen = loc.getShort(28) & 0xFFFF;
        long dataStart = entry.localOffset + LOC_LEN + nameLen + extraLen;
        if (dataStart + entry.compressedSize > cenStart) throw fail(ErrorKind.BAD_OFFSET, entry.localOffset, "entry " + entry.name + " data runs past the central directory");
        String localName = utf8(read(entry.localOffset + LOC_LEN, nameLen), 0, nameLen, entry.localOffset);
        if (!localName.equals(entry.name)) throw fail(ErrorKind.BAD_ARCHIVE, entry.localOffset, "local header names '" + printable(localName) + "', central directory '" + entry.name + "'");
        ByteBuffer raw = read(dataStart, (int) entry.compressedSize);
        byte[] out = new byte[(int) entry.size];
        if (entry.method == STORED) {
            raw.get(out);
        } else {
            inflate(entry, raw, out, dataStart);
        }
        CRC32 crc = new CRC32();
        crc.update(out);
        if (crc.getValue() != entry.crc) throw fail(ErrorKind.BAD_ARCHIVE, dataStart, "entry " + entry.name + " fails its CRC-32 check (corrupt)");
        return out;
    }

    private void inflate(Entry entry, ByteBuffer raw, byte[] out, long dataStart) throws FormatException {
        Inflater inf = new Inflater(true);
        try {
            inf.setInput(raw);
            int n = 0;
            while (n < out.length && !inf.finished()) {
                int got = inf.inflate(out, n, out.length - n);
                if (got == 0 && (inf.needsInput() || inf.needsDictionary())) break;
                n += got;
            }
            if (n != out.length || (!inf.finished() && inf.inflate(new byte[1]) > 0)) {
                throw fail(ErrorKind.BAD_ARCHIVE, dataStart, "entry " + entry.name + " inflates to a size other than its declared " + entry.size + " bytes");
            }
        } catch (DataFormatException e) {
            throw fail(ErrorKind.BAD_ARCHIVE, dataStart, "entry " + entry.name + " is not valid DEFLATE data (" + e.getMessage() + ")");
        } finally {
            inf.end();
        }
    }

    private ByteBuffer read(long position, int length) throws IOException, FormatException {
        if (position < 0 || length < 0 || position + length > fileSize) throw fail(ErrorKind.TRUNCATED, position, "needs " + length + " bytes past the end of the file (truncated)");
        ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        while (b.hasRemaining()) {
            if (channel.position(position + b.position()).read(b) < 0) throw fail(ErrorKind.TRUNCATED, position, "file ends early (truncated)");
        }
        return b.flip();
    }

    private String utf8(ByteBuffer b, int from, int length, long at) throws FormatException {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(b.slice(from, length)).toString();
        } catch (CharacterCodingException e) {
            throw fail(ErrorKind.BAD_ARCHIVE, at, "entry name is not valid UTF-8");
        }
    }

    private static String printable(String s) {
        String t = s.replaceAll("\\p{Cntrl}", "?");
        return t.length() > 80 ? t.substring(0, 80) + "..." : t;
    }

    FormatException fail(ErrorKind kind, long offset, String problem) {
        return new FormatException(kind, file, offset, problem);
    }
}
