package dev.needlewb.core.tokenizer;

import dev.needlewb.core.generation.Generation;
import java.util.List;

/**
 * How each generation's exporter ({@code export._tokenizer_blob}) turns a SentencePiece model into
 * the tokenizer blob of a {@code .cact}: which pieces it marks USER_DEFINED (its
 * {@code CHAT_MARKERS}) and where the blob's {@code add_dummy_prefix} byte comes from. Needle 2
 * writes 1 whatever the model; Needle 3 writes 1 when the first piece of {@code Encode("a")}
 * starts with U+2581, i.e. what the model does. (How many pieces a model may have against the
 * vocabulary, equal for Needle 2 and at most for Needle 3, is a rule of the {@code .cact} checks.)
 */
public enum TokenizerRules {
    NEEDLE2(SpecialTokens.CHAT_MARKERS, false),
    NEEDLE3(SpecialTokens.NEEDLE3_CHAT_MARKERS, true);

    private final List<String> markers;
    private final boolean detectsDummyPrefix;

    TokenizerRules(List<String> markers, boolean detectsDummyPrefix) {
        this.markers = markers;
        this.detectsDummyPrefix = detectsDummyPrefix;
    }

    /** The rules of {@code generation}'s exporter. */
    public static TokenizerRules of(Generation generation) {
        return switch (generation) {
            case NEEDLE2 -> NEEDLE2;
            case NEEDLE3 -> NEEDLE3;
        };
    }

    /** The pieces marked USER_DEFINED, in id order. */
    public List<String> markers() {
        return markers;
    }

    /** Whether the blob's add_dummy_prefix is read from the model's own encoding (else it is 1). */
    public boolean detectsDummyPrefix() {
        return detectsDummyPrefix;
    }
}
