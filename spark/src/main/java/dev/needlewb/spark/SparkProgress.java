package dev.needlewb.spark;

import dev.needlewb.cli.Progress;
import dev.needlewb.cli.scale.SweepJob;
import java.io.PrintWriter;
import java.util.Locale;
import org.apache.spark.Success$;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.apache.spark.util.LongAccumulator;

/**
 * Spark's own counts on the terminal and in the log: sweep tasks done (the accumulator the
 * partitions add to, merged by Spark only for task attempts that succeeded) out of all, and Spark
 * tasks finished, failed and retried. A failed attempt gets a line of its own as it happens.
 */
final class SparkProgress extends SparkListener implements AutoCloseable {
    private final SweepJob<?> job;
    private final int sparkTasks;
    private final LongAccumulator done;
    private final Progress progress;
    private final PrintWriter say;
    private int finished, failed, retried;

    SparkProgress(SweepJob<?> job, int sparkTasks, LongAccumulator done) {
        this.job = job;
        this.sparkTasks = sparkTasks;
        this.done = done;
        this.say = job.say();
        this.progress = Progress.logging(job.label(), job.tasks().size(), job.unit(), say);
    }

    @Override
    public synchronized void onTaskStart(SparkListenerTaskStart start) {
        if (start.taskInfo().attemptNumber() > 0) retried++;
    }

    @Override
    public synchronized void onTaskEnd(SparkListenerTaskEnd end) {
        if (end.reason() == Success$.MODULE$) {
            finished++;
        } else {
            failed++;
            say.printf(Locale.ROOT, "%s: Spark task %d (partition %d, attempt %d) failed on executor %s (%s): %s; Spark runs it again%n",
                    job.label(), end.taskInfo().taskId(), end.taskInfo().partitionId(), end.taskInfo().attemptNumber(),
                    end.taskInfo().executorId(), end.taskInfo().host(), end.reason().toString().lines().findFirst().orElse(""));
            say.flush();
        }
        progress.update(done.value(), counts());
    }

    private String counts() {
        return String.format(Locale.ROOT, "(Spark tasks: %d/%d done, %d failed, %d retried)", finished, sparkTasks, failed, retried);
    }

    /** The closing line: what ran where, and what Spark had to run again. */
    synchronized void summary() {
        say.printf(Locale.ROOT, "%s: %d %s in %d Spark tasks: %d failed, %d retried%n", job.label(), done.value(), job.unit(), sparkTasks, failed, retried);
        say.flush();
    }

    @Override
    public synchronized void close() {
        progress.close();
    }
}
