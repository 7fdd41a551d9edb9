package dev.needlewb.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** One captured run of the command line. */
record CliRun(int exit, String out, String err) {
    static CliRun of(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new CliRun(code, out.toString(), err.toString());
    }

    /** {@code needle-wb args} in a JVM of its own, both streams merged: for what only a process shows (signals, kills, exit codes, files left). */
    static ProcessBuilder childJvm(String... args) {
        return new ProcessBuilder(ChildJvm.command(java.util.List.of(), java.util.List.of(args))).redirectErrorStream(true);
    }
}
