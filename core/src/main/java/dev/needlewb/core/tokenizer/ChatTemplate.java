package dev.needlewb.core.tokenizer;

import static dev.needlewb.core.tokenizer.SpecialTokens.IM_END;
import static dev.needlewb.core.tokenizer.SpecialTokens.IM_START;
import static dev.needlewb.core.tokenizer.SpecialTokens.TOOLS_END;
import static dev.needlewb.core.tokenizer.SpecialTokens.TOOLS_START;

/**
 * The tool-call prompt of upstream {@code finetune.render_example} (SPEC section 7):
 * {@code [<|im_start|>system\n{system}<|im_end|>\n]<|im_start|>user\n<tools>{tools}</tools>\n
 * {query}<|im_end|>\n<|im_start|>assistant\n}, encoded as one text behind BOS as upstream's
 * {@code _encode} does. The model then answers {@code <think>..</think>\n<tool_call>[..]
 * </tool_call><|im_end|>}.
 */
public final class ChatTemplate {
    /**
     * A rendered prompt. {@code toolPrefixTokens} counts the leading ids (BOS included) that the
     * text up to and including {@code </tools>} determines: the system and tools block, which an
     * engine may pin as attention sinks. (Upstream's own decode pins none: its
     * {@code _doc_prefix_len} returns 0.)
     */
    public record Prompt(String text, int[] ids, int toolPrefixTokens) {
        public Prompt {
            ids = ids.clone();
        }

        @Override
        public int[] ids() {
            return ids.clone();
        }
    }

    private final Tokenizer tokenizer;

    public ChatTemplate(Tokenizer tokenizer) {
        this.tokenizer = tokenizer;
    }

    /** The prompt with the tools in the training format (compact JSON, upstream's shape) and no system turn. */
    public Prompt render(ToolSchemas tools, String query) {
        return render(tools, query, "");
    }

    /** As {@link #render(ToolSchemas, String)} with a system turn ({@code ""}: none), as upstream's {@code system} field. */
    public Prompt render(ToolSchemas tools, String query, String system) {
        return render(tools.toJson(PythonJson.Separators.COMPACT), query, system);
    }

    /** The prompt for already rendered tools JSON text; an empty {@code system} adds no system turn. */
    public Prompt render(String toolsJson, String query, String system) {
        String systemTurn = system.isEmpty() ? "" : IM_START + "system\n" + system + IM_END + "\n";
        String toolBlock = systemTurn + IM_START + "user\n" + TOOLS_START + toolsJson + TOOLS_END;
        String text = toolBlock + "\n" + query + IM_END + "\n" + IM_START + "assistant\n";
        int[] ids = withBos(tokenizer.encode(text));
        int[] prefix = withBos(tokenizer.encode(toolBlock));
        int shared = 0;
        while (shared < prefix.length && shared < ids.length && prefix[shared] == ids[shared]) shared++;
        return new Prompt(text, ids, shared);
    }

    private int[] withBos(int[] encoded) {
        int[] ids = new int[encoded.length + 1];
        ids[0] = tokenizer.bosId();
        System.arraycopy(encoded, 0, ids, 1, encoded.length);
        return ids;
    }
}
