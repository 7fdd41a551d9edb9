package dev.needlewb.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code needle-wb study <study>}: experiments on the quantizer. */
@Command(name = "study", mixinStandardHelpOptions = true, description = "Studies of the CQ quantizer.",
        subcommands = {IdempotenceCommand.class})
final class StudyCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
