package dev.needlewb.engine;

import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.core.tokenizer.Tokenizer;
import dev.needlewb.core.tokenizer.TokenizerVocab;

/** The tokenizer a test's open {@code .cact} stores in its last tensor. */
public final class MiniTokenizer {
    private MiniTokenizer() {}

    public static Tokenizer of(CactFile cact) throws Exception {
        TensorRecord record = cact.tensors().getLast();
        return new Tokenizer(TokenizerVocab.parse(cact.tokenizerBlob(), cact.path(), record.index(), record.offset()));
    }
}
