package dev.needlewb.core.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The heap BPE must pick exactly the merges of upstream's quadratic loop, ties included. */
class BpeAgainstNaiveTest {
    private static final String[] ALPHABET = {"a", "b", "c", " ", "\u2581", "\u00E9", "\uD83D\uDE00", "<", "x", ">", "\n"};

    @Test
    void goldenVocabularyOnRandomTexts() throws Exception {
        Tokenizer tok = TokenizerTest.golden();
        NaiveRefTokenizer naive = new NaiveRefTokenizer(tok.vocab());
        Random random = new Random(11);
        List<String> pieces = new ArrayList<>();
        for (int i = 0; i < tok.vocab().size(); i++) pieces.add(tok.vocab().piece(i).replace('\u2581', ' '));
        for (int t = 0; t < 1500; t++) {
            StringBuilder text = new StringBuilder();
            int parts = random.nextInt(30);
            for (int p = 0; p < parts; p++) {
                // vocabulary pieces make merges likely; random code points exercise byte fallback
                if (random.nextInt(4) == 0) text.appendCodePoint(randomCodePoint(random));
                else text.append(pieces.get(random.nextInt(pieces.size())));
            }
            String s = text.toString();
            assertThat(tok.encode(s)).as("%s", s).containsExactly(naive.encode(s).stream().mapToInt(Integer::intValue).toArray());
        }
    }

    @Test
    void randomVocabulariesWithTiedScoresDuplicatesAndMissingBytes() throws Exception {
        Random random = new Random(12);
        for (int v = 0; v < 150; v++) {
            TokenizerVocab vocab = randomVocab(random);
            Tokenizer tok = new Tokenizer(vocab);
            NaiveRefTokenizer naive = new NaiveRefTokenizer(vocab);
            for (int t = 0; t < 40; t++) {
                StringBuilder text = new StringBuilder();
                int len = random.nextInt(40);
                for (int k = 0; k < len; k++) text.append(ALPHABET[random.nextInt(ALPHABET.length)]);
                String s = text.toString();
                int[] expected = naive.encode(s).stream().mapToInt(Integer::intValue).toArray();
                assertThat(tok.encode(s)).as("vocab %d text '%s'", v, s).containsExactly(expected);
            }
        }
    }

    private static TokenizerVocab randomVocab(Random random) {
        List<String> pieces = new ArrayList<>(List.of("<unk>", "<s>"));
        List<PieceType> types = new ArrayList<>(List.of(PieceType.UNKNOWN, PieceType.CONTROL));
        // few distinct scores, both zeros: ties and -0 == +0 must resolve leftmost
        float[] scoreChoices = {0f, -0f, -1f, 2f, -3.5f};
        List<Float> scores = new ArrayList<>(List.of(0f, 0f));
        for (String marker : List.of("<x>", "<xx>", "a\u2581")) {
            if (random.nextBoolean()) {
                pieces.add(marker);
                types.add(PieceType.USER_DEFINED);
                scores.add(0f);
            }
        }
        for (int b = 0; b < 256; b++) {
            if (random.nextInt(8) != 0) {
                pieces.add(String.format("<0x%02X>", b));
                types.add(PieceType.BYTE);
                scores.add(0f);
            }
        }
        int normal = 5 + random.nextInt(40);
        for (int i = 0; i < normal; i++) {
            StringBuilder piece = new StringBuilder();
            int len = 1 + random.nextInt(4);
            for (int k = 0; k < len; k++) {
                String c = ALPHABET[random.nextInt(ALPHABET.length)];
                piece.append(c.equals(" ") ? "\u2581" : c);
            }
            pieces.add(piece.toString());
            types.add(PieceType.NORMAL);
            scores.add(scoreChoices[random.nextInt(scoreChoices.length)]);
        }
        float[] s = new float[scores.size()];
        for (int i = 0; i < s.length; i++) s[i] = scores.get(i);
        return new TokenizerVocab(pieces, s, types, 1, 1, 1, 0, random.nextBoolean(), random.nextBoolean());
    }

    private static int randomCodePoint(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> 0x20 + random.nextInt(0x5F);
            case 1 -> 0xA0 + random.nextInt(0x700);
            case 2 -> 0x4E00 + random.nextInt(0x100);
            default -> 0x1F300 + random.nextInt(0x300);
        };
    }
}
