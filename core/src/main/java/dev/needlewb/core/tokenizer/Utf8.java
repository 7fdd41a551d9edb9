package dev.needlewb.core.tokenizer;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/** Strict UTF-8 decoding for piece spellings: overlong forms, surrogates and truncation are errors. */
final class Utf8 {
    private Utf8() {}

    /** The decoded text, or null if the bytes are not well-formed UTF-8. */
    static String decodeStrict(byte[] bytes) {
        if (isAscii(bytes)) return new String(bytes, StandardCharsets.US_ASCII);
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    private static boolean isAscii(byte[] bytes) {
        for (byte b : bytes) {
            if (b < 0) return false;
        }
        return true;
    }
}
