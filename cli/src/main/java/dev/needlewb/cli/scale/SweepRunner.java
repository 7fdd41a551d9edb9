package dev.needlewb.cli.scale;

import dev.needlewb.core.WorkbenchException;
import java.io.IOException;
import java.io.Serializable;
import java.util.List;

/** Runs a sweep's tasks, here or on a cluster, and returns their results in task order. */
public interface SweepRunner extends AutoCloseable {
    <R extends Serializable> List<R> run(SweepJob<R> job) throws WorkbenchException, IOException;

    @Override
    void close();
}
