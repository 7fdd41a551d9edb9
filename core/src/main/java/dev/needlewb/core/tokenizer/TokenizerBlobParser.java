package dev.needlewb.core.tokenizer;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Reads a RAW tokenizer blob, checking every count and length against the blob size before
 * anything is allocated; errors carry the absolute file offset of the offending field.
 */
final class TokenizerBlobParser {
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final MemorySegment blob;
    private final Path file;
    private final int tensorIndex;
    private final long blobOffset;

    TokenizerBlobParser(MemorySegment blob, Path file, int tensorIndex, long blobOffset) {
        this.blob = blob;
        this.file = file;
        this.tensorIndex = tensorIndex;
        this.blobOffset = blobOffset;
    }

    TokenizerVocab parse() throws FormatException {
        long length = blob.byteSize();
        if (length < TokenizerVocab.HEADER_BYTES) {
            throw error(ErrorKind.TRUNCATED, 0, "blob of " + length + " bytes is shorter than the " + TokenizerVocab.HEADER_BYTES + "-byte header");
        }
        long n = u32(0);
        long maxPieces = Math.min((length - TokenizerVocab.HEADER_BYTES) / TokenizerVocab.RECORD_HEAD_BYTES,
                Integer.MAX_VALUE - 8);
        if (n > maxPieces) {
            throw error(ErrorKind.BAD_HEADER_FIELD, 0, "n_pieces " + n + " cannot fit in " + length + " bytes (at most " + maxPieces + ")");
        }
        String idProblem = TokenizerVocab.idProblem(n, u32(4), u32(8), u32(12), u32(16));
        if (idProblem != null) throw error(ErrorKind.BAD_TOKENIZER, 4, idProblem);
        boolean addDummyPrefix = flag(20, "add_dummy_prefix");
        boolean byteFallback = flag(21, "byte_fallback");
        int reserved = Short.toUnsignedInt(blob.get(U16, 22));
        if (reserved != 0) throw error(ErrorKind.NONZERO_RESERVED, 22, "reserved header field is " + reserved + ", expected 0");

        int count = (int) n;
        String[] pieces = new String[count];
        float[] scores = new float[count];
        PieceType[] types = new PieceType[count];
        long off = TokenizerVocab.HEADER_BYTES;
        for (int i = 0; i < count; i++) {
            long record = off;
            if (length - off < TokenizerVocab.RECORD_HEAD_BYTES) {
                throw error(ErrorKind.TRUNCATED, off, "piece " + i + " of " + count + ": record header runs past the blob end (" + length + " bytes)");
            }
            float score = blob.get(F32, off);
            int typeCode = Byte.toUnsignedInt(blob.get(ValueLayout.JAVA_BYTE, off + 4));
            int len = Short.toUnsignedInt(blob.get(U16, off + 5));
            off += TokenizerVocab.RECORD_HEAD_BYTES;
            PieceType type = PieceType.ofCode(typeCode);
            if (type == null) throw error(ErrorKind.BAD_TOKENIZER, record + 4, "piece " + i + ": type " + typeCode + " is not one of 0..4");
            if (len > length - off) {
                throw error(ErrorKind.TRUNCATED, record + 5, "piece " + i + ": length " + len + " runs past the blob end (" + (length - off) + " bytes left)");
            }
            String piece = Utf8.decodeStrict(blob.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE));
            if (piece == null) throw error(ErrorKind.BAD_TOKENIZER, off, "piece " + i + ": spelling is not valid UTF-8");
            String problem = TokenizerVocab.pieceProblem(piece, type, score);
            if (problem != null) throw error(ErrorKind.BAD_TOKENIZER, record, "piece " + i + ": " + problem);
            pieces[i] = piece;
            scores[i] = score;
            types[i] = type;
            off += len;
        }
        if (off != length) throw error(ErrorKind.TRAILING_BYTES, off, (length - off) + " trailing bytes after the last piece");
        return new TokenizerVocab(Arrays.asList(pieces), scores, Arrays.asList(types),
                (int) u32(4), (int) u32(8), (int) u32(12), (int) u32(16), addDummyPrefix, byteFallback);
    }

    private long u32(long off) {
        return Integer.toUnsignedLong(blob.get(U32, off));
    }

    private boolean flag(long off, String name) throws FormatException {
        int v = Byte.toUnsignedInt(blob.get(ValueLayout.JAVA_BYTE, off));
        if (v > 1) throw error(ErrorKind.BAD_HEADER_FIELD, off, name + " is " + v + ", expected 0 or 1");
        return v == 1;
    }

    private FormatException error(ErrorKind kind, long off, String problem) {
        return new FormatException(kind, file, tensorIndex, TokenizerVocab.TENSOR_NAME, blobOffset + off, problem);
    }
}
