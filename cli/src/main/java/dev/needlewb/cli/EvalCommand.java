package dev.needlewb.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code needle-wb eval <what>}: evaluations of a model's answers. */
@Command(name = "eval", mixinStandardHelpOptions = true, description = "Evaluate what a model answers.",
        subcommands = {ToolCallsCommand.class})
final class EvalCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
