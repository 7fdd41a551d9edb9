package dev.needlewb.cli.scale;

import java.io.PrintWriter;
import java.io.Serializable;
import java.util.List;

/**
 * A sweep as a runner sees it.
 *
 * @param label what the progress lines call it ({@code eval toolcalls})
 * @param unit  what one task is ({@code cases})
 * @param files the files the tasks read, for a runner that ships them
 * @param say   where progress lines go: Spark's always, this process's only if {@code sayHere} (a terminal gets a bar either way)
 */
public record SweepJob<R extends Serializable>(String label, String unit, List<? extends SweepTask<R>> tasks, List<ModelFile> files,
                                               PrintWriter say, boolean sayHere) {
    public SweepJob {
        tasks = List.copyOf(tasks);
        files = List.copyOf(files);
    }
}
