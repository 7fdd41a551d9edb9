package dev.needlewb.core.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.needlewb.golden.Golden;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ChatTemplateTest {
    private static final String TOOLS = "[{\"name\": \"get_weather\", \"parameters\": {\"type\": \"object\"}}]";

    @Test
    void rendersUpstreamsTrainingPromptText() throws Exception {
        ChatTemplate.Prompt prompt = new ChatTemplate(TokenizerTest.golden())
                .render(ToolSchemas.parse(TOOLS, "tools"), "What is the weather in Paris?");
        assertThat(prompt.text()).isEqualTo("<|im_start|>user\n<tools>[{\"name\":\"get_weather\",\"parameters\":{\"type\":\"object\"}}]"
                + "</tools>\nWhat is the weather in Paris?<|im_end|>\n<|im_start|>assistant\n");
    }

    @Test
    void toolPrefixMatchesTheGoldenChatSequence() throws Exception {
        Tokenizer tok = TokenizerTest.golden();
        ChatTemplate.Prompt prompt = new ChatTemplate(tok).render(ToolSchemas.parse(TOOLS, "tools"), "What is the weather in Paris?");
        // sequences.json s040 = BOS + the first 32 ids of upstream's encode of a chat text with
        // these tools; its id 32 is </tools>, so the first 33 ids are the tool prefix
        int[] s040 = TokenizerTest.ints(Golden.json(Golden.mini("sequences.json")).get("s040").get("tokens"));
        assertThat(prompt.toolPrefixTokens()).isEqualTo(33);
        assertThat(Arrays.copyOf(prompt.ids(), 33)).containsExactly(Arrays.copyOf(s040, 33));
        assertThat(prompt.ids()[32]).as("</tools>").isEqualTo(9);
        int[] rest = tok.encode("\nWhat is the weather in Paris?<|im_end|>\n<|im_start|>assistant\n");
        // the ids after the prefix are the rest of the text encoded on its own, minus the dummy prefix piece
        assertThat(Arrays.copyOfRange(prompt.ids(), 33, prompt.ids().length)).containsExactly(Arrays.copyOfRange(rest, 1, rest.length));
    }

    @Test
    void systemTurnIsPartOfThePrefix() throws Exception {
        Tokenizer tok = TokenizerTest.golden();
        ChatTemplate.Prompt prompt = new ChatTemplate(tok).render("[]", "hi", "be brief");
        assertThat(prompt.text()).isEqualTo("<|im_start|>system\nbe brief<|im_end|>\n<|im_start|>user\n<tools>[]</tools>\nhi<|im_end|>\n<|im_start|>assistant\n");
        assertThat(prompt.ids()[prompt.toolPrefixTokens() - 1]).isEqualTo(9);
        assertThat(prompt.ids()[0]).isEqualTo(tok.bosId());
    }

    @Test
    void theSameToolsInEveryShapeGiveTheSamePromptIds() throws Exception {
        Tokenizer tok = TokenizerTest.golden();
        ChatTemplate template = new ChatTemplate(tok);
        String query = "Wake me at 7";
        // upstream's render_example: json.dumps(tools, separators=(",", ":")) of the tools in its own shape
        String upstreamText = "<|im_start|>system\nbe brief<|im_end|>\n<|im_start|>user\n<tools>" + ToolSchemasTest.UPSTREAM + "</tools>\n"
                + query + "<|im_end|>\n<|im_start|>assistant\n";
        int[] expected = template.render(ToolSchemas.parse(ToolSchemasTest.UPSTREAM, "t"), query, "be brief").ids();
        assertThat(expected.length).isGreaterThan(40);
        for (String shape : new String[] {ToolSchemasTest.OPENAI, ToolSchemasTest.OPENAI_FLAT, ToolSchemasTest.FLATTENED}) {
            ChatTemplate.Prompt prompt = template.render(ToolSchemas.parse(shape, "t"), query, "be brief");
            assertThat(prompt.text()).isEqualTo(upstreamText);
            assertThat(prompt.ids()).containsExactly(expected);
        }
    }
}
