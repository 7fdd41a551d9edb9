package dev.needlewb.spark;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskStart;

/**
 * A driver-side listener (spark.extraListeners) that kills a worker of a {@link StandaloneCluster}
 * the moment one of its executors starts a task: the task is then certainly in flight when its
 * executor dies.
 */
public final class WorkerKiller extends SparkListener {
    /** The worker to kill: its cluster and index; taken (set to null) by the kill. */
    record Target(StandaloneCluster cluster, int worker) {}

    static final AtomicReference<Target> TARGET = new AtomicReference<>();
    /** The executor whose task was cut off, once the kill happened. */
    static final AtomicReference<String> KILLED_EXECUTOR = new AtomicReference<>();

    @Override
    public void onTaskStart(SparkListenerTaskStart start) {
        Target t = TARGET.get();
        String executor = start.taskInfo().executorId();
        if (t == null || !runsOn(t, executor) || !TARGET.compareAndSet(t, null)) return;
        t.cluster().kill(t.worker());
        KILLED_EXECUTOR.set(executor);
    }

    /** Whether the target worker started {@code executor} (its work folder holds app-ID/EXECUTOR-ID). */
    private static boolean runsOn(Target t, String executor) {
        try (Stream<Path> apps = Files.list(t.cluster().workDir(t.worker()))) {
            return apps.anyMatch(app -> Files.isDirectory(app.resolve(executor)));
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
