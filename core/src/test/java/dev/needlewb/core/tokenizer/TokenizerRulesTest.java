package dev.needlewb.core.tokenizer;

import static dev.needlewb.core.tokenizer.SentencePieceModelTest.concat;
import static dev.needlewb.core.tokenizer.SentencePieceModelTest.field;
import static dev.needlewb.core.tokenizer.SentencePieceModelTest.piece;
import static dev.needlewb.core.tokenizer.SentencePieceModelTest.varint;
import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.core.generation.Generation;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What each generation's {@code export._tokenizer_blob} makes of one SentencePiece model trained as
 * upstream trains Needle 3's (the specials 0..3, then its sixteen CHAT_MARKERS as user-defined
 * symbols, ids 4..19): Needle 2 marks its ten, Needle 3 all sixteen; Needle 2 writes
 * add_dummy_prefix 1 whatever the model, Needle 3 what {@code Encode("a")} shows; and the tool
 * prompt of {@code render_example}, the same text in both generations, encoded by each.
 */
class TokenizerRulesTest {
    private static final Path FILE = Path.of("needle3.model");

    /** ModelProto: specials, markers, three normal pieces with U+2581, the 256 byte pieces; BPE with byte fallback. */
    private static SentencePieceModel model(boolean addDummyPrefix) throws Exception {
        ByteArrayOutputStream proto = new ByteArrayOutputStream();
        proto.write(concat(piece("<pad>", 0f, 3), piece("</s>", 0f, 3), piece("<s>", 0f, 3), piece("<unk>", 0f, 2)));
        for (String marker : SpecialTokens.NEEDLE3_CHAT_MARKERS) proto.write(piece(marker, 0f, 4));
        proto.write(concat(piece("\u2581", -1f, 1), piece("a", -2f, 1), piece("\u2581a", -3f, 1)));
        for (int b = 0; b < 256; b++) proto.write(piece(String.format("<0x%02X>", b), 0f, 6));
        proto.write(field(2, 2, concat(field(3, 0, varint(2)), field(35, 0, varint(1)),
                field(40, 0, varint(3)), field(41, 0, varint(2)), field(42, 0, varint(1)), field(43, 0, varint(0)))));
        proto.write(field(3, 2, field(3, 0, varint(addDummyPrefix ? 1 : 0))));
        return SentencePieceModel.parse(proto.toByteArray(), FILE);
    }

    private static List<String> markers() {
        return SpecialTokens.NEEDLE3_CHAT_MARKERS;
    }

    @Test
    void eachGenerationMarksItsOwnChatMarkersAtUpstreamsIds() throws Exception {
        SentencePieceModel model = model(true);
        Tokenizer v2 = new Tokenizer(model.toVocab(Generation.NEEDLE2));
        Tokenizer v3 = new Tokenizer(model.toVocab(Generation.NEEDLE3));
        // tokenizer.py: IM_START_ID .. THINK_END_ID = 4..7, TOOLS_START_ID .. TOOL_RESULT_END_ID = 8..13; the six new
        // markers follow in CHAT_MARKERS order. A text that is just a marker encodes as the dummy prefix, then the marker.
        int dummy = 4 + markers().size();
        List<String> markers = markers();
        assertThat(markers).hasSize(16).startsWith(SpecialTokens.CHAT_MARKERS.toArray(String[]::new));
        for (int i = 0; i < markers.size(); i++) {
            int id = 4 + i;
            assertThat(v3.vocab().type(id)).as(markers.get(i)).isEqualTo(PieceType.USER_DEFINED);
            assertThat(v3.encode(markers.get(i))).as(markers.get(i)).containsExactly(dummy, id);
            if (i < SpecialTokens.CHAT_MARKERS.size()) {
                assertThat(v2.encode(markers.get(i))).as(markers.get(i)).containsExactly(dummy, id);
            } else {
                // Needle 2's exporter writes the piece NORMAL: text, spelled through the bytes
                assertThat(v2.vocab().type(id)).as(markers.get(i)).isEqualTo(PieceType.NORMAL);
                assertThat(v2.encode(markers.get(i))).as(markers.get(i)).doesNotContain(id).hasSizeGreaterThan(1);
            }
        }
    }

    @Test
    void needle3ReadsTheDummyPrefixFromTheModelNeedle2WritesOne() throws Exception {
        for (boolean flag : new boolean[] {true, false}) {
            SentencePieceModel model = model(flag);
            assertThat(model.toVocab(Generation.NEEDLE2).addDummyPrefix()).as("Needle 2, model flag %s", flag).isTrue();
            assertThat(model.toVocab(Generation.NEEDLE3).addDummyPrefix()).as("Needle 3, model flag %s", flag).isEqualTo(flag);
            // the blob header byte 20 carries it (<IIIIIBBH)
            assertThat(model.toVocab(Generation.NEEDLE3).toBytes()[20]).isEqualTo((byte) (flag ? 1 : 0));
        }
        // Encode("a") of the flagged model is the one piece "\u2581a": that first piece decides
        TokenizerVocab v3 = model(true).toVocab(Generation.NEEDLE3);
        int[] a = new Tokenizer(v3).encode("a");
        assertThat(a).hasSize(1);
        assertThat(v3.piece(a[0])).isEqualTo("\u2581a");
    }

    @Test
    void theToolPromptIsOneTextBothGenerationsEncodeTheirWay() throws Exception {
        SentencePieceModel model = model(true);
        ToolSchemas tools = ToolSchemas.parse("[{\"name\":\"extract_dates\",\"description\":\"Dates in a passage\","
                + "\"parameters\":{\"type\":\"object\",\"properties\":{\"dates\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},"
                + "\"required\":[\"dates\"]}}]", "tools");
        String query = "<extract>dates</extract> from <context>met on May 3</context>";
        ChatTemplate.Prompt p2 = new ChatTemplate(new Tokenizer(model.toVocab(Generation.NEEDLE2))).render(tools, query, "be brief");
        ChatTemplate.Prompt p3 = new ChatTemplate(new Tokenizer(model.toVocab(Generation.NEEDLE3))).render(tools, query, "be brief");
        // render_example is the same function in both generations
        assertThat(p3.text()).isEqualTo(p2.text()).startsWith("<|im_start|>system\nbe brief<|im_end|>\n<|im_start|>user\n<tools>[{")
                .endsWith("</tools>\n" + query + "<|im_end|>\n<|im_start|>assistant\n");
        // BOS, <|im_start|>, ... the system and tools block encodes alike: only the query holds the new markers
        assertThat(p3.toolPrefixTokens()).isEqualTo(p2.toolPrefixTokens());
        assertThat(Arrays.copyOf(p3.ids(), p3.toolPrefixTokens())).containsExactly(Arrays.copyOf(p2.ids(), p2.toolPrefixTokens()));
        assertThat(p3.ids()[0]).isEqualTo(SpecialTokens.BOS_ID);
        assertThat(p3.ids()[2]).isEqualTo(4); // after BOS and the dummy prefix

        int[] tail3 = Arrays.copyOfRange(p3.ids(), p3.toolPrefixTokens(), p3.ids().length);
        int[] tail2 = Arrays.copyOfRange(p2.ids(), p2.toolPrefixTokens(), p2.ids().length);
        // EXTRACT_START/END 16/17, CONTEXT_START/END 14/15 in Needle 3; bytes in Needle 2
        assertThat(tail3).contains(14, 15, 16, 17);
        assertThat(tail2).doesNotContain(14, 15, 16, 17).hasSizeGreaterThan(tail3.length);
        assertThat(new Tokenizer(model.toVocab(Generation.NEEDLE3)).decode(p3.ids())).isEqualTo(p3.text());
        assertThat(new Tokenizer(model.toVocab(Generation.NEEDLE2)).decode(p2.ids())).isEqualTo(p2.text());
    }
}
