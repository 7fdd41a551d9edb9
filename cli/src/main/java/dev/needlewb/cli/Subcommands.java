package dev.needlewb.cli;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs commands of the workbench in this process exactly as a user would, for commands made of other commands. */
final class Subcommands {
    private Subcommands() {}

    /**
     * Runs the command line {@code args}, keeping its output only to explain a failure; an exit code
     * other than 0 and {@code alsoAccepted} throws, naming {@code caller}. Returns the exit code.
     */
    static int run(String caller, int alsoAccepted, String... args) throws WorkbenchException {
        StringWriter log = new StringWriter();
        PrintWriter sink = new PrintWriter(log, true);
        int exit = Main.run(args, sink, sink);
        if (exit != 0 && exit != alsoAccepted) {
            throw new WorkbenchException(ErrorKind.STEP_FAILED, caller + " step 'needle-wb " + String.join(" ", args) + "' failed: " + log.toString().strip());
        }
        return exit;
    }
}
