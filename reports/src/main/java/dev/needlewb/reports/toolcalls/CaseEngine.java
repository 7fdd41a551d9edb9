package dev.needlewb.reports.toolcalls;

import dev.needlewb.core.WorkbenchException;

/**
 * An engine that answers tool-call cases, one instance for a whole run, as a server would hold
 * one (see {@link CaseEngines} for the names it is chosen by).
 */
public interface CaseEngine extends AutoCloseable {
    String name();

    /** Greedy constrained answer to {@code p} in at most {@code maxNew} tokens. */
    Answer answer(ToolCallRunner runner, ToolCallRunner.Prepared p, int maxNew) throws WorkbenchException;

    /**
     * Drops the prompt prefixes kept from earlier cases, so that how many prompt tokens the next cases
     * step does not depend on which cases ran before them in this instance.
     */
    default void forgetPrefixes() {}

    /** Decode position limit: a prompt must leave room for the answer. */
    int maxPositions();

    @Override
    void close();
}
