package dev.needlewb.cli;

import dev.needlewb.cli.scale.ModelFile;
import dev.needlewb.cli.scale.SweepTask;
import dev.needlewb.cli.scale.TaskContext;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.converter.finite.NonFinitePolicy;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.reports.toolcalls.Answer;
import dev.needlewb.reports.toolcalls.CaseEngine;
import dev.needlewb.reports.toolcalls.CaseEngines;
import dev.needlewb.reports.toolcalls.ReferenceCaseEngine;
import dev.needlewb.reports.toolcalls.ToolCallCase;
import dev.needlewb.reports.toolcalls.ToolCallRunner;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Path;

/**
 * One case of {@code eval toolcalls} through one engine: the case travels as its line of the cases
 * file, and the model, its tokenizer's grammar cache and the engine are opened once per partition.
 * Cases over the same system turn and tools form a group, so the native engine's prefix cache steps
 * their common prompt once; it starts empty at each group, so what a case steps does not depend on
 * where the case ran.
 */
record ToolCallTask(Setup setup, String engine, String source, int line, String caseLine, String group) implements SweepTask<Answer> {
    /** What every task of one eval shares: the files and the generation settings. */
    record Setup(ModelFile model, ModelFile against, ModelFile like, NonFinitePolicy nonFinite, int threads, int maxNew, int thinkMax)
            implements Serializable {}

    /** The model file open with its tool-call runner (tokenizer, template, grammar cache). */
    private record OpenModel(CactFile cact, ToolCallRunner runner) implements AutoCloseable {
        @Override
        public void close() {
            cact.close();
        }
    }

    @Override
    public String resource() {
        return engine;
    }

    @Override
    public Answer run(TaskContext context) throws WorkbenchException, IOException {
        Path modelPath = context.local(setup.model());
        OpenModel model = context.shared("model", () -> {
            CactFile cact = CactFile.open(modelPath, setup.nonFinite());
            try {
                return new OpenModel(cact, new ToolCallRunner(ModelTokenizer.of(cact), setup.thinkMax(), false));
            } catch (WorkbenchException | RuntimeException e) {
                cact.close();
                throw e;
            }
        });
        CaseEngine opened = context.shared("engine " + engine, () -> open(context, model));
        if (context.groupStarts()) opened.forgetPrefixes();
        ToolCallCase c = ToolCallCase.parseLine(caseLine, source, line);
        return opened.answer(model.runner(), model.runner().prepare(c.tools(), c.query(), c.system()), setup.maxNew());
    }

    private CaseEngine open(TaskContext context, OpenModel model) throws WorkbenchException, IOException {
        if (!engine.equals(ToolCallsCommand.REFERENCE)) return CaseEngines.factory(engine).open(model.cact(), setup.threads());
        Path like = context.local(setup.like() != null ? setup.like() : setup.model());
        return new ReferenceCaseEngine(ModelSource.load(context.local(setup.against()), like, setup.nonFinite()).reference());
    }
}
