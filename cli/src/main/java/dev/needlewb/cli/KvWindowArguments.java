package dev.needlewb.cli;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.engine.EngineOptions;
import picocli.CommandLine.Option;

/** Overrides of the attention window: {@code --window} replaces the header's kv_window, {@code --sinks} pins leading positions. */
final class KvWindowArguments {
    @Option(names = "--window", paramLabel = "N",
            description = "Sliding KV window in positions, 0 = none (default: the header's kv_window; none when that is 0 or at least max_seq_len).")
    Integer window;

    @Option(names = "--sinks", paramLabel = "K",
            description = "Leading positions always visible (default: the tool prefix with --tools, else 0).")
    Integer sinks;

    /**
     * {@code options} with the window and sinks in effect: the explicit values when given, else the
     * header window and {@code defaultSinks} (the tool prefix length, or 0).
     */
    EngineOptions apply(EngineOptions options, int defaultSinks, int promptTokens) throws WorkbenchException {
        if (window != null && window < 0) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--window must be >= 0 (0 = no window), got " + window);
        if (sinks != null && sinks < 0) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--sinks must be >= 0, got " + sinks);
        if (sinks != null && sinks > promptTokens) {
            throw new WorkbenchException(ErrorKind.BAD_OPTION, "--sinks " + sinks + " pins more positions than the prompt's " + promptTokens + " tokens");
        }
        return options.withWindow(window == null ? EngineOptions.FROM_HEADER : window, sinks == null ? defaultSinks : sinks);
    }
}
