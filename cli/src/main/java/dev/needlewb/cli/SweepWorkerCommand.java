package dev.needlewb.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.needlewb.reports.report.Report;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/**
 * Runs command lines in this process as they arrive on standard input (one JSON array of arguments a
 * line), answering each on standard output with one line that starts with {@value #OUTCOME}: exit,
 * first error line, seconds. A sweep keeps one of these per vector width ({@link WidthJvm}): the width
 * is fixed when the kernels load, so each width needs a JVM of its own, and one JVM for all of a
 * width's commands starts the JIT once.
 */
@Command(name = "serve", hidden = true, mixinStandardHelpOptions = true,
        description = "Run command lines from standard input in this process (internal: one child JVM per vector width).")
final class SweepWorkerCommand implements Callable<Integer> {
    /** What starts an answer line; anything else on standard output is not an answer. */
    static final String OUTCOME = "needle-wb-outcome ";

    @Override
    public Integer call() throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream answers = System.out;
        for (String request; (request = in.readLine()) != null; ) {
            List<String> args = new ArrayList<>();
            Report.JSON.readTree(request).forEach(a -> args.add(a.asText()));
            StringWriter out = new StringWriter(), err = new StringWriter();
            long t0 = System.nanoTime();
            int exit = Main.run(args.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(err, true));
            ObjectNode line = Report.JSON.createObjectNode();
            line.put("exit", exit);
            if (exit != 0 && exit != 1) line.put("error", err.toString().strip().lines().findFirst().orElse(""));
            line.put("seconds", (System.nanoTime() - t0) / 1e9);
            answers.println(OUTCOME + line);
            answers.flush();
        }
        return 0;
    }

    /** The outcome an answer line reports. */
    static dev.needlewb.reports.sweep.CommandOutcome outcome(String answer) throws IOException {
        JsonNode n = Report.JSON.readTree(answer.substring(OUTCOME.length()));
        return new dev.needlewb.reports.sweep.CommandOutcome(n.path("exit").asInt(), n.hasNonNull("error") ? n.path("error").asText() : null,
                n.path("seconds").asDouble());
    }
}
