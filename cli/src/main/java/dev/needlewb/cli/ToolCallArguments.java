package dev.needlewb.cli;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import picocli.CommandLine.Option;

/** How tool calls are decoded and which tools the prompt shows: shared by generate, bench and eval. */
final class ToolCallArguments {
    /** {@code --think-max} as generate, bench and eval all declare it. */
    static final String THINK_MAX_DEFAULT = "48";
    static final String THINK_MAX_HELP = "Most tokens of free <think> reasoning before the call is forced to open (default: ${DEFAULT-VALUE}).";

    @Option(names = "--constrained", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Decode the answer through the tools' grammar (default: on with --tools; --no-constrained lets the model write any bytes).")
    boolean constrained;

    @Option(names = "--think-max", paramLabel = "N", defaultValue = THINK_MAX_DEFAULT, description = THINK_MAX_HELP)
    int thinkMax;

    @Option(names = "--require-call", description = "The answer must call a tool: the empty list [] (the model's refusal) is not allowed.")
    boolean requireCall;

    @Option(names = "--top-tools", paramLabel = "K",
            description = "Keep only the K tools the contrastive head ranks closest to the query (all when there are at most K).")
    Integer topTools;

    void check() throws WorkbenchException {
        checkThinkMax(thinkMax);
        if (topTools != null && topTools < 1) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--top-tools must be >= 1, got " + topTools);
    }

    static void checkThinkMax(int thinkMax) throws WorkbenchException {
        if (thinkMax < 0) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--think-max must be >= 0, got " + thinkMax);
    }
}
