package dev.needlewb.cli.scale;

import dev.needlewb.cli.Progress;
import dev.needlewb.core.WorkbenchException;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Runs a sweep in this process, one partition per resource, one after the other: the run without {@code --master}. */
public final class LocalSweepRunner implements SweepRunner {
    @Override
    public <R extends Serializable> List<R> run(SweepJob<R> job) throws WorkbenchException, IOException {
        @SuppressWarnings("unchecked")
        R[] results = (R[]) new Serializable[job.tasks().size()];
        long[] done = {0};
        try (Progress progress = Progress.logging(job.label(), job.tasks().size(), job.unit(), job.sayHere() ? job.say() : null)) {
            for (List<Integer> partition : PartitionPlan.of(job.tasks(), 1)) {
                List<SweepTask<R>> tasks = new ArrayList<>();
                for (int i : partition) tasks.add(job.tasks().get(i));
                List<R> out = PartitionRun.run(tasks, PartitionRun.SHARED_PATH, r -> progress.update(++done[0]));
                for (int k = 0; k < partition.size(); k++) results[partition.get(k)] = out.get(k);
            }
        }
        return Arrays.asList(results);
    }

    @Override
    public String describe() {
        return "this process";
    }

    @Override
    public void close() {}
}
