package dev.needlewb.converter.synth;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A structurally valid RAW tokenizer blob (header {@code <IIIIIBBH}, records {@code <fBH} +
 * UTF-8) of a chosen vocabulary and exact byte size, for synthetic files: pad/eos/bos/unk, the
 * ten chat markers, byte pieces while the vocabulary allows, then distinct normal pieces
 * lengthened until the blob has the requested size. Not a trained vocabulary.
 */
public final class SyntheticTokenizerBlob {
    private static final int HEADER = 24;
    private static final int RECORD = 7;
    private static final String[] MARKERS = {"<|im_start|>", "<|im_end|>", "<think>", "</think>", "<tools>", "</tools>",
        "<tool_call>", "</tool_call>", "<tool_result>", "</tool_result>"};

    private SyntheticTokenizerBlob() {}

    /** The n-th string over [0-9A-Za-z] in length-then-lexicographic order: distinct, short; '~' padding keeps them distinct. */
    private static String shortName(int n) {
        String alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        StringBuilder sb = new StringBuilder();
        int k = n + 1;
        while (k > 0) {
            k--;
            sb.append(alphabet.charAt(k % alphabet.length()));
            k /= alphabet.length();
        }
        return sb.reverse().toString();
    }

    /** A blob with {@code vocab} pieces and exactly {@code totalBytes} bytes. */
    public static byte[] of(int vocab, int totalBytes) {
        List<String> pieces = new ArrayList<>();
        List<Integer> types = new ArrayList<>();
        String[] specials = {"<pad>", "</s>", "<s>", "<unk>"};
        for (int i = 0; i < Math.min(vocab, 4); i++) {
            pieces.add(specials[i]);
            types.add(i == 3 ? 1 : 2);
        }
        for (int i = 0; i < MARKERS.length && pieces.size() < vocab; i++) {
            pieces.add(MARKERS[i]);
            types.add(3);
        }
        for (int b = 0; b < 256 && pieces.size() < vocab; b++) {
            pieces.add(String.format("<0x%02X>", b));
            types.add(4);
        }
        int firstNormal = pieces.size();
        for (int n = 0; pieces.size() < vocab; n++) {
            pieces.add(shortName(n));
            types.add(0);
        }
        long size = HEADER;
        for (String p : pieces) size += RECORD + p.getBytes(StandardCharsets.UTF_8).length;
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
            ByteBuffer rec = ByteBuffer.allocate(RECORD).order(ByteOrder.LITTLE_ENDIAN);
            rec.putFloat(types.get(i) == 0 ? -i : 0f).put((byte) (int) types.get(i)).putShort((short) utf8.length);
            out.writeBytes(rec.array());
            out.writeBytes(utf8);
        }
        return out.toByteArray();
    }
}
