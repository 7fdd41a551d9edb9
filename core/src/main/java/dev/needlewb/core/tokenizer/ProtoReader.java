package dev.needlewb.core.tokenizer;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A cursor over one protobuf message in a byte array (wire format: varint keys, wire types
 * 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32). Every length is checked against the
 * enclosing message's end; errors name the file and the absolute byte offset.
 */
final class ProtoReader {
    private static final int VARINT = 0;
    private static final int FIXED64 = 1;
    private static final int LEN = 2;
    private static final int FIXED32 = 5;

    private final byte[] data;
    private final Path file;
    private final String message;
    private final int end;
    private int pos;
    private int fieldStart;
    private int fieldNumber;
    private int wireType;
    private int lastEnd;

    ProtoReader(byte[] data, Path file, String message, int start, int end) {
        this.data = data;
        this.file = file;
        this.message = message;
        this.pos = start;
        this.end = end;
    }

    /** Advances to the next field's key; false at the message end. */
    boolean next() throws FormatException {
        if (pos >= end) return false;
        fieldStart = pos;
        long key = varint();
        fieldNumber = (int) (key >>> 3);
        wireType = (int) (key & 7);
        if (key >>> 3 == 0 || key >>> 3 > 0x1FFFFFFF) throw error(ErrorKind.BAD_TOKENIZER, fieldStart, "field number " + (key >>> 3) + " is invalid");
        if (wireType != VARINT && wireType != FIXED64 && wireType != LEN && wireType != FIXED32) {
            throw error(ErrorKind.BAD_TOKENIZER, fieldStart, "field " + fieldNumber + " has unsupported wire type " + wireType);
        }
        return true;
    }

    int fieldNumber() { return fieldNumber; }

    /** Absolute offset of the current field's key. */
    int fieldStart() { return fieldStart; }

    /** Skips the current field's value, whatever its wire type. */
    void skip() throws FormatException {
        switch (wireType) {
            case VARINT -> varint();
            case FIXED64 -> take(8);
            case FIXED32 -> take(4);
            default -> take(length());
        }
    }

    /** An int32/enum field: protobuf writes negative values as 64-bit two's complement varints. */
    int readInt32() throws FormatException {
        expect(VARINT);
        long v = varint();
        if (v != (int) v) throw error(ErrorKind.BAD_TOKENIZER, fieldStart, "field " + fieldNumber + " value " + v + " does not fit int32");
        return (int) v;
    }

    boolean readBool() throws FormatException {
        expect(VARINT);
        return varint() != 0;
    }

    float readFloat() throws FormatException {
        expect(FIXED32);
        int at = take(4);
        return ByteBuffer.wrap(data, at, 4).order(ByteOrder.LITTLE_ENDIAN).getFloat();
    }

    /** A length-delimited field: returns its payload start and leaves its end in {@code lastEnd}. */
    private int readLengthDelimited() throws FormatException {
        expect(LEN);
        int len = length();
        int at = take(len);
        lastEnd = at + len;
        return at;
    }

    /** A nested message reader over the current length-delimited field. */
    ProtoReader readMessage(String name) throws FormatException {
        int start = readLengthDelimited();
        return new ProtoReader(data, file, name, start, lastEnd);
    }

    /** A string field, strictly UTF-8. */
    String readString() throws FormatException {
        int start = readLengthDelimited();
        String s = Utf8.decodeStrict(Arrays.copyOfRange(data, start, lastEnd));
        if (s == null) throw error(ErrorKind.BAD_TOKENIZER, start, "field " + fieldNumber + " is not valid UTF-8");
        return s;
    }

    FormatException error(ErrorKind kind, long offset, String problem) {
        return new FormatException(kind, file, offset, message + ": " + problem);
    }

    private void expect(int type) throws FormatException {
        if (wireType != type) {
            throw error(ErrorKind.BAD_TOKENIZER, fieldStart, "field " + fieldNumber + " has wire type " + wireType + ", expected " + type);
        }
    }

    private int length() throws FormatException {
        int at = pos;
        long len = varint();
        if (len < 0 || len > end - pos) {
            throw error(ErrorKind.TRUNCATED, at, "field " + fieldNumber + " length " + len + " runs past the message end (" + (end - pos) + " bytes left)");
        }
        return (int) len;
    }

    /** Consumes n bytes, returning where they start. */
    private int take(int n) throws FormatException {
        if (n > end - pos) throw error(ErrorKind.TRUNCATED, pos, "field " + fieldNumber + " needs " + n + " bytes, " + (end - pos) + " left");
        int at = pos;
        pos += n;
        return at;
    }

    private long varint() throws FormatException {
        int start = pos;
        long result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos >= end) throw error(ErrorKind.TRUNCATED, start, "varint runs past the message end");
            int b = data[pos++] & 0xFF;
            result |= (long) (b & 0x7F) << shift;
            if (b < 0x80) return result;
        }
        throw error(ErrorKind.BAD_TOKENIZER, start, "varint longer than 10 bytes");
    }
}
