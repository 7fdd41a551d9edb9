package dev.needlewb.cli;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.core.tokenizer.Tokenizer;

/** The tokenizer a .cact stores in its last (RAW) tensor. */
final class ModelTokenizer {
    private ModelTokenizer() {}

    static Tokenizer of(CactFile cact) throws WorkbenchException {
        if (!cact.hasTokenizer()) {
            throw new WorkbenchException(ErrorKind.MISSING_KEY, cact.path() + ": this .cact has no tokenizer (exported without one); give token ids instead of text");
        }
        return new Tokenizer(cact.tokenizerVocab());
    }
}
