package dev.needlewb.converter.synth;

import dev.needlewb.core.tokenizer.PieceType;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A structurally valid RAW tokenizer blob (header {@code <IIIIIBBH}, records {@code <fBH} +
 * UTF-8) of a chosen vocabulary and exact byte size, for synthetic files: the pieces of
 * {@link SyntheticVocab}, the normal ones lengthened with '~' (which keeps them distinct) until the
 * blob has the requested size. Not a trained vocabulary.
 */
public final class SyntheticTokenizerBlob {
    private static final int HEADER = 24;
    private static final int RECORD = 7;

    private SyntheticTokenizerBlob() {}

    /** A blob with {@code vocab} pieces and exactly {@code totalBytes} bytes. */
    public static byte[] of(int vocab, int totalBytes) {
        List<SyntheticVocab.Piece> vocabulary = SyntheticVocab.pieces(vocab);
        List<String> pieces = new ArrayList<>();
        int firstNormal = vocab;
        long size = HEADER;
        for (int i = 0; i < vocab; i++) {
            SyntheticVocab.Piece p = vocabulary.get(i);
            pieces.add(p.text());
            if (p.type() == PieceType.NORMAL) firstNormal = Math.min(firstNormal, i);
            size += RECORD + p.text().getBytes(StandardCharsets.UTF_8).length;
        }
        long extra = totalBytes - size;
        int normals = vocab - firstNormal;
        if (extra < 0 || (extra > 0 && normals == 0)) {
            throw new IllegalArgumentException("a " + vocab + "-piece blob cannot have exactly " + totalBytes + " bytes");
        }
        for (int i = firstNormal; i < vocab && normals > 0; i++) {
            int add = (int) (extra / normals + (i - firstNormal < extra % normals ? 1 : 0));
            pieces.set(i, pieces.get(i) + "~".repeat(add));
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(totalBytes);
        ByteBuffer head = ByteBuffer.allocate(HEADER).order(ByteOrder.LITTLE_ENDIAN);
        head.putInt(vocab).putInt(0).putInt(1).putInt(2).putInt(3).put((byte) 1).put((byte) 1).putShort((short) 0);
        out.writeBytes(head.array());
        for (int i = 0; i < vocab; i++) {
            byte[] utf8 = pieces.get(i).getBytes(StandardCharsets.UTF_8);
            SyntheticVocab.Piece p = vocabulary.get(i);
            ByteBuffer rec = ByteBuffer.allocate(RECORD).order(ByteOrder.LITTLE_ENDIAN);
            rec.putFloat(SyntheticVocab.score(p, i)).put((byte) p.type().code()).putShort((short) utf8.length);
            out.writeBytes(rec.array());
            out.writeBytes(utf8);
        }
        return out.toByteArray();
    }
}
