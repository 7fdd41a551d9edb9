package dev.needlewb.core.tokenizer;

import static dev.needlewb.core.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.golden.Golden;
import java.nio.file.Path;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

class TokenizerTest {
    static Tokenizer golden() throws Exception {
        byte[] blob = Golden.array(Golden.mini("cact_tensors.npz"), "t110").data().clone();
        return new Tokenizer(TokenizerVocab.parse(blob, Path.of("mini.cact"), 110, 0));
    }

    static int[] ints(JsonNode array) {
        return StreamSupport.stream(array.spliterator(), false).mapToInt(JsonNode::asInt).toArray();
    }

    @Test
    void everyGoldenRowEncodesAndDecodesExactlyAsUpstream() throws Exception {
        Tokenizer tok = golden();
        JsonNode rows = Golden.json(Golden.mini("tokenizer.json")).get("rows");
        assertThat(rows).hasSize(43);
        for (JsonNode row : rows) {
            String text = row.get("text").asText();
            assertThat(tok.encode(text)).as("encode %s", text).containsExactly(ints(row.get("ref_ids")));
            assertThat(tok.decode(ints(row.get("ref_ids")))).as("decode ref %s", text).isEqualTo(row.get("ref_decode").asText());
            assertThat(tok.decode(ints(row.get("sp_ids")))).as("decode sp %s", text)
                    .isEqualTo(row.get("ref_decode_of_sp_ids").asText());
        }
    }

    @Test
    void generatePromptIdsAreBosPlusEncode() throws Exception {
        Tokenizer tok = golden();
        JsonNode runs = Golden.json(Golden.mini("decode.json")).get("generate_cached");
        int[] encoded = tok.encode("What is the weather in Paris?");
        int[] expected = new int[encoded.length + 1];
        expected[0] = tok.bosId();
        System.arraycopy(encoded, 0, expected, 1, encoded.length);
        for (JsonNode run : runs) assertThat(expected).containsExactly(ints(run.get("prompt_ids")));
    }

    @Test
    void unknownIdsAreRefusedByName() throws Exception {
        Tokenizer tok = golden();
        refused(ErrorKind.BAD_PROMPT, () -> tok.decode(new int[] {5, 512}));
        refused(ErrorKind.BAD_PROMPT, () -> tok.decode(new int[] {-1}));
    }

    @Test
    void unpairedSurrogatesAreRefused() throws Exception {
        Tokenizer tok = golden();
        assertThatThrownBy(() -> tok.encode("a\uD83D")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("text has an unpaired surrogate at index 1");
    }

    @Test
    void emojiFallsBackToItsFourUtf8Bytes() throws Exception {
        Tokenizer tok = golden();
        // U+1F600 = F0 9F 98 80; byte piece ids are 14 + byte value in this vocabulary
        int[] ids = tok.encode("\uD83D\uDE00");
        assertThat(ids).endsWith(14 + 0xF0, 14 + 0x9F, 14 + 0x98, 14 + 0x80);
        assertThat(tok.decode(ids)).isEqualTo("\uD83D\uDE00");
    }
}
