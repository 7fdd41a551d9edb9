package dev.needlewb.engine.grammar;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.core.tokenizer.SpecialTokens;
import dev.needlewb.core.tokenizer.Tokenizer;
import java.util.Arrays;

/** Reads the call list out of generated ids: the text between the {@code <tool_call>} and {@code </tool_call>} marker tokens. */
public final class ToolCallAnswer {
    private ToolCallAnswer() {}

    /** The JSON text of the call list, or null when the ids hold no closed {@code <tool_call>} block. */
    public static String callsJson(int[] ids, Tokenizer tokenizer) throws WorkbenchException {
        int open = indexOf(ids, markerId(tokenizer, SpecialTokens.TOOL_CALL_START), 0);
        if (open < 0) return null;
        int close = indexOf(ids, markerId(tokenizer, SpecialTokens.TOOL_CALL_END), open + 1);
        if (close < 0) return null;
        return tokenizer.decode(Arrays.copyOfRange(ids, open + 1, close));
    }

    /** The index of the first token of the call list (after {@code <tool_call>}), or -1. */
    public static int callsStart(int[] ids, Tokenizer tokenizer) {
        int open = indexOf(ids, markerId(tokenizer, SpecialTokens.TOOL_CALL_START), 0);
        return open < 0 ? -1 : open + 1;
    }

    private static int markerId(Tokenizer tokenizer, String marker) {
        int[] ids = tokenizer.encode(marker);
        // encode adds the dummy-prefix space before a marker; the marker is the last id
        int id = ids.length == 0 ? -1 : ids[ids.length - 1];
        return id >= 0 && tokenizer.vocab().piece(id).equals(marker) ? id : -1;
    }

    private static int indexOf(int[] ids, int id, int from) {
        if (id < 0) return -1;
        for (int i = from; i < ids.length; i++) if (ids[i] == id) return i;
        return -1;
    }
}
