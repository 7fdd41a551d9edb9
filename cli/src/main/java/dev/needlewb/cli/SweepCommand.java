package dev.needlewb.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code needle-wb sweep <sweep>}: many models through every engine. */
@Command(name = "sweep", mixinStandardHelpOptions = true, description = "Sweeps of many models through every engine.",
        subcommands = {GeometrySweepCommand.class, ParitySweepCommand.class, SweepWorkerCommand.class})
final class SweepCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
