package dev.needlewb.cli;

import dev.needlewb.core.simd.VectorWidth;
import dev.needlewb.reports.report.Report;
import dev.needlewb.reports.sweep.CommandOutcome;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM at one vector width that runs command lines on request ({@link SweepWorkerCommand}),
 * its own output into a log. A command whose JVM dies is reported {@link CommandOutcome#CRASHED}, and
 * the next command gets a fresh JVM.
 */
final class WidthJvm implements AutoCloseable {
    private final int bits;
    private final Path log;
    private Process process;
    private Writer requests;
    private BufferedReader answers;

    WidthJvm(int bits, Path log) {
        this.bits = bits;
        this.log = log;
    }

    CommandOutcome run(List<String> args) throws IOException {
        if (process == null || !process.isAlive()) start();
        var request = Report.JSON.createArrayNode();
        args.forEach(request::add);
        try {
            requests.write(request + "\n");
            requests.flush();
            for (String line; (line = answers.readLine()) != null; ) {
                if (line.startsWith(SweepWorkerCommand.OUTCOME)) return SweepWorkerCommand.outcome(line);
            }
        } catch (IOException e) {
            // the child closed its end: it died, reported below
        }
        int exit = waitForExit();
        process = null;
        return new CommandOutcome(CommandOutcome.CRASHED, "child JVM at " + bits + " bits exit " + exit + " (log " + log + ")", 0);
    }

    private void start() throws IOException {
        ProcessBuilder pb = new ProcessBuilder(ChildJvm.command(List.of("-D" + VectorWidth.PROPERTY + "=" + bits), List.of("sweep", "serve")))
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        process = pb.start();
        requests = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        answers = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    private int waitForExit() {
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
            return process.exitValue();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            return CommandOutcome.CRASHED;
        }
    }

    /** Ends the child: end of input, which it answers by exiting; killed if it does not. */
    @Override
    public void close() {
        if (process == null) return;
        try {
            requests.close();
        } catch (IOException e) {
            // already gone
        }
        waitForExit();
    }
}
