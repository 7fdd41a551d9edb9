package dev.needlewb.reports.toolcalls;

import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.cact.TensorRecord;
import dev.needlewb.core.tokenizer.Tokenizer;
import dev.needlewb.core.tokenizer.TokenizerVocab;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The eval tests' cases (test resource {@code toolcalls/mini-cases.jsonl}) prepared for a model file's own tokenizer. */
final class MiniCases {
    private MiniCases() {}

    /** A runner on {@code cact}'s tokenizer (think budget 8, no call required). */
    static ToolCallRunner runner(CactFile cact) throws Exception {
        TensorRecord record = cact.tensors().getLast();
        return new ToolCallRunner(new Tokenizer(TokenizerVocab.parse(cact.tokenizerBlob(), cact.path(), record.index(), record.offset())), 8, false);
    }

    /** Every case's prompt, in file order. */
    static List<ToolCallRunner.Prepared> prepared(ToolCallRunner runner) throws Exception {
        List<ToolCallRunner.Prepared> out = new ArrayList<>();
        for (ToolCallCase c : ToolCallCase.read(Path.of(MiniCases.class.getResource("/toolcalls/mini-cases.jsonl").toURI()))) {
            out.add(runner.prepare(c.tools(), c.query(), ""));
        }
        return out;
    }
}
