package dev.needlewb.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.reports.report.Report;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Runs a list of command lines in this process, one after the other, appending how each ended to a
 * results file as soon as it does (so a process that dies leaves the results of the commands before it).
 * A sweep starts one of these per vector width: the width is fixed when the kernels load, so each
 * width needs a JVM of its own, and one JVM for all of a width's commands starts the JIT once.
 */
@Command(name = "run-plan", hidden = true, mixinStandardHelpOptions = true,
        description = "Run a sweep's command lines in this process (internal: one child JVM per vector width).")
final class SweepWorkerCommand implements Callable<Integer> {
    @Parameters(paramLabel = "PLAN.json", description = "[{\"id\": ..., \"args\": [...]}, ...]")
    Path plan;

    @Option(names = "--results", required = true, paramLabel = "FILE", description = "JSON lines: id, exit, error, seconds.")
    Path results;

    /** One command of a plan. */
    record Step(String id, List<String> args) {}

    static String planJson(List<Step> steps) {
        var array = Report.JSON.createArrayNode();
        for (Step s : steps) {
            ObjectNode n = array.addObject();
            n.put("id", s.id());
            s.args().forEach(n.putArray("args")::add);
        }
        return array.toString();
    }

    @Override
    public Integer call() throws WorkbenchException, IOException {
        JsonNode steps = Report.JSON.readTree(plan.toFile());
        for (JsonNode step : steps) {
            List<String> args = new ArrayList<>();
            step.path("args").forEach(a -> args.add(a.asText()));
            StringWriter out = new StringWriter(), err = new StringWriter();
            long t0 = System.nanoTime();
            int exit = Main.run(args.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(err, true));
            ObjectNode line = Report.JSON.createObjectNode();
            line.put("id", step.path("id").asText());
            line.put("exit", exit);
            if (exit != 0 && exit != 1) line.put("error", err.toString().strip().lines().findFirst().orElse(""));
            line.put("seconds", (System.nanoTime() - t0) / 1e9);
            Files.writeString(results, line.toString() + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
        return 0;
    }
}
