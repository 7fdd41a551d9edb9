package dev.needlewb.torch;

import dev.needlewb.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;

/** One captured run of the command line, with the torch engine on the class path. */
record Cli(int exit, String out, String err) {
    static Cli run(String... args) {
        StringWriter out = new StringWriter(), err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Cli(code, out.toString(), err.toString());
    }
}
