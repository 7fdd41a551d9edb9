package dev.needlewb.cli;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.core.tokenizer.TokenizerVocab;
import dev.needlewb.core.tokenizer.Tokenizer;

/** The tokenizer a .cact stores in its last (RAW) tensor. */
final class ModelTokenizer {
    private ModelTokenizer() {}

    static Tokenizer of(CactFile cact) throws WorkbenchException {
        if (!cact.hasTokenizer()) {
            throw new WorkbenchException(cact.path() + ": this .cact has no tokenizer (exported without one); give token ids instead of text");
        }
        TensorRecord record = cact.tensors().getLast();
        return new Tokenizer(TokenizerVocab.parse(cact.tokenizerBlob(), cact.path(), record.index(), record.offset()));
    }
}
