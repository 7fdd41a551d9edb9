package dev.needlewb.core.tokenizer;

import java.util.List;

/**
 * The special ids and the chat markers of upstream {@code tokenizer.py}; the markers are in id
 * order (ids 4..13 in Needle vocabularies, Needle 3's six new ones after them). Each generation's
 * exporter marks exactly its list USER_DEFINED ({@link TokenizerRules}); the encoder splits the
 * USER_DEFINED pieces of a blob out of the text before BPE.
 */
public final class SpecialTokens {
    public static final String IM_START = "<|im_start|>";
    public static final String IM_END = "<|im_end|>";
    public static final String THINK_START = "<think>";
    public static final String THINK_END = "</think>";
    public static final String TOOLS_START = "<tools>";
    public static final String TOOLS_END = "</tools>";
    public static final String TOOL_CALL_START = "<tool_call>";
    public static final String TOOL_CALL_END = "</tool_call>";
    public static final String TOOL_RESULT_START = "<tool_result>";
    public static final String TOOL_RESULT_END = "</tool_result>";

    /** Needle 3's additions (tokenizer.py of usserwout/needle3 3.0.1). */
    public static final String CONTEXT_START = "<context>";
    public static final String CONTEXT_END = "</context>";
    public static final String EXTRACT_START = "<extract>";
    public static final String EXTRACT_END = "</extract>";
    public static final String SCHEMA_START = "<schema>";
    public static final String SCHEMA_END = "</schema>";

    /** Needle 2's ten markers. */
    public static final List<String> CHAT_MARKERS = List.of(IM_START, IM_END, THINK_START, THINK_END,
            TOOLS_START, TOOLS_END, TOOL_CALL_START, TOOL_CALL_END, TOOL_RESULT_START, TOOL_RESULT_END);

    /** Needle 3's sixteen: Needle 2's ten, then context, extract and schema. */
    public static final List<String> NEEDLE3_CHAT_MARKERS = java.util.stream.Stream.concat(CHAT_MARKERS.stream(),
            java.util.stream.Stream.of(CONTEXT_START, CONTEXT_END, EXTRACT_START, EXTRACT_END, SCHEMA_START, SCHEMA_END)).toList();

    /** The special ids upstream hard-codes (tokenizer.py) and writes into every blob header. */
    public static final int PAD_ID = 0;
    public static final int EOS_ID = 1;
    public static final int BOS_ID = 2;
    public static final int UNK_ID = 3;

    private SpecialTokens() {}
}
