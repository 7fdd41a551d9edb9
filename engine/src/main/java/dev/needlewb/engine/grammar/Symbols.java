package dev.needlewb.engine.grammar;

import dev.needlewb.core.tokenizer.SpecialTokens;

/** The automaton's alphabet: bytes 0..255, then one symbol per chat marker (a marker is one token). */
final class Symbols {
    static final int MARKER_BASE = 256;
    static final int THINK_START = marker(SpecialTokens.THINK_START);
    static final int THINK_END = marker(SpecialTokens.THINK_END);
    static final int TOOL_CALL_START = marker(SpecialTokens.TOOL_CALL_START);
    static final int TOOL_CALL_END = marker(SpecialTokens.TOOL_CALL_END);
    static final int IM_END = marker(SpecialTokens.IM_END);

    private Symbols() {}

    /** The symbol of a chat marker's spelling, or -1 for any other text. */
    static int marker(String spelling) {
        int k = SpecialTokens.CHAT_MARKERS.indexOf(spelling);
        return k < 0 ? -1 : MARKER_BASE + k;
    }
}
