package dev.needlewb.cli;

import dev.needlewb.cli.scale.SweepTask;
import dev.needlewb.cli.scale.TaskContext;
import dev.needlewb.core.WorkbenchException;
import dev.needlewb.reports.sweep.CommandOutcome;
import java.io.IOException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The parity run of one geometry's converted model at one vector width, in the partition's child JVM
 * at that width; its report comes back as text, so the driver reads it wherever the run wrote it.
 *
 * @param parityJson where the parity command writes its parity.json
 * @param log        the child JVM's log
 */
record GeometryParityTask(String geometry, int bits, List<String> args, String parityJson, String log) implements SweepTask<GeometryParityTask.Result> {
    /** How the command ended, and its parity.json when it ran to a verdict. */
    record Result(CommandOutcome outcome, String parityJson) implements Serializable {}

    GeometryParityTask {
        args = List.copyOf(args);
    }

    @Override
    public String resource() {
        return "width " + bits;
    }

    @Override
    public String group() {
        return geometry;
    }

    @Override
    public Result run(TaskContext context) throws WorkbenchException, IOException {
        Path logFile = Path.of(log);
        Files.createDirectories(logFile.getParent());
        WidthJvm jvm = context.shared("jvm", () -> new WidthJvm(bits, logFile));
        CommandOutcome outcome = jvm.run(args);
        return new Result(outcome, outcome.ran() ? Files.readString(Path.of(parityJson), StandardCharsets.UTF_8) : null);
    }
}
