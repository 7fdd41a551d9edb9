package dev.needlewb.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;

/** The command line a report records: the full subcommand path plus the arguments as typed. */
final class CommandLines {
    private CommandLines() {}

    static String[] of(CommandSpec spec) {
        List<String> words = new ArrayList<>();
        words.add(spec.root().name());
        words.addAll(spec.commandLine().getParseResult().originalArgs());
        return words.toArray(String[]::new);
    }
}
