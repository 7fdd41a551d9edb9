package dev.needlewb.cli.scale;

import dev.needlewb.cli.Progress;
import dev.needlewb.core.WorkbenchException;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs a sweep in this process, one partition per resource, up to {@code parallel} partitions at
 * once: the run without {@code --master}.
 */
public final class LocalSweepRunner implements SweepRunner {
    private final int parallel;

    public LocalSweepRunner(int parallel) {
        if (parallel < 1) throw new IllegalArgumentException("parallel " + parallel);
        this.parallel = parallel;
    }

    @Override
    public <R extends Serializable> List<R> run(SweepJob<R> job) throws WorkbenchException, IOException {
        @SuppressWarnings("unchecked")
        R[] results = (R[]) new Serializable[job.tasks().size()];
        long[] done = {0};
        List<List<Integer>> plan = PartitionPlan.of(job.tasks(), 1);
        try (Progress progress = Progress.logging(job.label(), job.tasks().size(), job.unit(), job.sayHere() ? job.say() : null);
             ExecutorService pool = Executors.newFixedThreadPool(Math.min(parallel, Math.max(1, plan.size())))) {
            List<Future<List<R>>> running = new ArrayList<>();
            for (List<Integer> partition : plan) {
                List<SweepTask<R>> tasks = new ArrayList<>();
                for (int i : partition) tasks.add(job.tasks().get(i));
                running.add(pool.submit(() -> PartitionRun.run(tasks, PartitionRun.SHARED_PATH, r -> {
                    synchronized (done) {
                        progress.update(++done[0]);
                    }
                })));
            }
            for (int p = 0; p < plan.size(); p++) {
                List<R> out = running.get(p).get();
                for (int k = 0; k < plan.get(p).size(); k++) results[plan.get(p).get(k)] = out.get(k);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (ExecutionException e) {
            switch (e.getCause()) {
                case WorkbenchException w -> throw w;
                case IOException io -> throw io;
                case RuntimeException r -> throw r;
                case Error err -> throw err;
                default -> throw new IllegalStateException(e.getCause());
            }
        }
        return Arrays.asList(results);
    }

    @Override
    public void close() {}
}
