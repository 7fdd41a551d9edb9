package dev.needlewb.cli.scale;

import dev.needlewb.core.WorkbenchException;
import java.io.IOException;
import java.io.Serializable;

/**
 * One independent piece of a sweep (one case through one engine of one model, one geometry, one
 * file): it travels to wherever the sweep runs, there opens what it needs through its
 * {@link TaskContext}, and returns a result that travels back. Its result must not depend on where
 * or after which other tasks it ran.
 *
 * @param <R> what one task returns
 */
public interface SweepTask<R extends Serializable> extends Serializable {
    /**
     * What the task opens and can share with others: a partition holds the tasks of one resource
     * only, so each one is opened once per partition (a model and its engine).
     */
    String resource();

    /**
     * Tasks that gain from running one after another on the same resource (cases over the same
     * tools share a prompt prefix): a group never spans partitions.
     */
    String group();

    R run(TaskContext context) throws WorkbenchException, IOException;
}
