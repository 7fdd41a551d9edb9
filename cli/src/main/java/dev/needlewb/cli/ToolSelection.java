package dev.needlewb.cli;

import dev.needlewb.core.WorkbenchException;
import dev.needlewb.converter.cact.CactFile;
import dev.needlewb.core.tokenizer.Tokenizer;
import dev.needlewb.core.tokenizer.ToolSchemas;
import dev.needlewb.engine.Engine;
import dev.needlewb.engine.EngineOptions;
import dev.needlewb.engine.retrieval.ContrastiveHead;
import dev.needlewb.engine.retrieval.ToolRetrieval;

/** {@code --top-tools K}: the tools the contrastive head ranks closest, on an engine of its own (no sinks). */
final class ToolSelection {
    private ToolSelection() {}

    static ToolSchemas top(CactFile cact, EngineOptions options, Tokenizer tokenizer, ToolSchemas tools, String query, int k)
            throws WorkbenchException {
        if (tools.size() <= k) return tools;
        ContrastiveHead head = ContrastiveHead.of(cact);
        try (Engine engine = Engine.load(cact, options.withWindow(EngineOptions.FROM_HEADER, 0))) {
            return new ToolRetrieval(engine, head, tokenizer, tools).top(query, k);
        }
    }
}
