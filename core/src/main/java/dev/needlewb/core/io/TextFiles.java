package dev.needlewb.core.io;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.FormatException;
import dev.needlewb.core.WorkbenchException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Small text inputs (token lists, case files) read as strict UTF-8, size bounded before reading. */
public final class TextFiles {
    private TextFiles() {}

    /**
     * The text of {@code file}; refused when it is larger than {@code maxBytes} or is not UTF-8 (a
     * binary file), naming the first byte that starts no character.
     *
     * @param what what the file should hold, for messages (e.g. "token ids")
     */
    public static String readUtf8(Path file, String what, long maxBytes) throws WorkbenchException {
        byte[] bytes;
        try {
            long size = Files.size(file);
            if (size > maxBytes) {
                throw new FormatException(ErrorKind.TOO_LARGE, file, FormatException.NO_OFFSET, size + " bytes is more than a file of " + what
                        + " holds (at most " + maxBytes + ")");
            }
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw WorkbenchException.cannotRead(file, e);
        }
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CoderResult result = decoder.decode(in, out, true);
        if (!result.isError()) result = decoder.flush(out);
        if (result.isError()) {
            throw new FormatException(ErrorKind.BAD_TEXT, file, in.position(), String.format("not a text file of %s: byte 0x%02X starts no UTF-8 character",
                    what, bytes[in.position()] & 0xFF));
        }
        return out.flip().toString();
    }
}
