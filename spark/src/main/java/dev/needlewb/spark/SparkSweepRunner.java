package dev.needlewb.spark;

import dev.needlewb.cli.scale.ModelFile;
import dev.needlewb.cli.scale.PartitionPlan;
import dev.needlewb.cli.scale.PartitionRun;
import dev.needlewb.cli.scale.ScaleOptions;
import dev.needlewb.cli.scale.SweepJob;
import dev.needlewb.cli.scale.SweepRunner;
import dev.needlewb.cli.scale.SweepTask;
import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkFiles;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.util.LongAccumulator;

/**
 * Runs a sweep on Apache Spark: each partition of the {@link PartitionPlan} is one Spark task, which
 * runs its sweep tasks in order on an executor ({@link PartitionRun}, the code a run without Spark
 * uses) and sends their results back; the driver puts them in task order. A task lost with its
 * executor is run again by Spark from its first sweep task, so nothing is counted twice.
 */
final class SparkSweepRunner implements SweepRunner {
    private final JavaSparkContext spark;
    private final boolean shipModels;
    private final Integer partitions;

    private SparkSweepRunner(JavaSparkContext spark, boolean shipModels, Integer partitions) {
        this.spark = spark;
        this.shipModels = shipModels;
        this.partitions = partitions;
    }

    static SparkSweepRunner open(ScaleOptions options, String appName) throws WorkbenchException {
        // new SparkConf() reads the spark.* system properties, so spark-submit's settings hold
        SparkConf conf = new SparkConf().setMaster(options.master()).setAppName(appName)
                .setIfMissing("spark.ui.enabled", "false")
                .setIfMissing("spark.ui.showConsoleProgress", "false");
        if (options.master().startsWith("local")) {
            // a run on this machine needs no network: the driver listens on loopback only
            conf.setIfMissing("spark.driver.host", "127.0.0.1").setIfMissing("spark.driver.bindAddress", "127.0.0.1");
        }
        options.conf().forEach(conf::set);
        try {
            return new SparkSweepRunner(new JavaSparkContext(conf), options.shipModels(), options.partitions());
        } catch (Exception e) { // SparkException too (a master URL Spark cannot parse), which Scala throws undeclared
            throw new WorkbenchException(ErrorKind.BAD_OPTION, "--master " + options.master() + ": Spark did not start: " + firstLine(e));
        }
    }

    @Override
    public <R extends Serializable> List<R> run(SweepJob<R> job) throws WorkbenchException, IOException {
        List<List<Integer>> plan = PartitionPlan.of(job.tasks(), partitions != null ? partitions : spark.defaultParallelism());
        List<List<SweepTask<R>>> slices = new ArrayList<>();
        for (List<Integer> partition : plan) {
            List<SweepTask<R>> tasks = new ArrayList<>();
            for (int i : partition) tasks.add(job.tasks().get(i));
            slices.add(tasks);
        }
        PartitionRun.FileFinder finder = PartitionRun.SHARED_PATH;
        if (shipModels) {
            for (ModelFile f : job.files()) spark.addFile(f.path());
            finder = file -> Path.of(SparkFiles.get(file.name()));
        }
        PartitionRun.FileFinder where = finder;
        LongAccumulator done = spark.sc().longAccumulator(job.unit() + " done");
        SparkProgress progress = new SparkProgress(job, slices.size(), done);
        spark.sc().addSparkListener(progress);
        List<List<R>> results;
        try {
            // one element per slice: slice k is partition k, its sweep tasks in order
            results = spark.parallelize(slices, Math.max(1, slices.size()))
                    .map(tasks -> PartitionRun.run(tasks, where, r -> done.add(1)))
                    .collect();
        } catch (Exception e) { // SparkException too, which Scala throws undeclared
            throw workbenchError(e);
        } finally {
            spark.sc().removeSparkListener(progress);
            progress.close();
        }
        @SuppressWarnings("unchecked")
        R[] ordered = (R[]) new Serializable[job.tasks().size()];
        for (int p = 0; p < plan.size(); p++) {
            List<Integer> partition = plan.get(p);
            for (int k = 0; k < partition.size(); k++) ordered[partition.get(k)] = results.get(p).get(k);
        }
        progress.summary();
        return Arrays.asList(ordered);
    }

    /** A task's own error (bad input on an executor) as it was thrown there; Spark's otherwise, in one line. */
    private static WorkbenchException workbenchError(Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof WorkbenchException w) return w;
        }
        return new WorkbenchException(ErrorKind.STEP_FAILED, "the Spark job failed: " + firstLine(e));
    }

    private static String firstLine(Throwable e) {
        String message = String.valueOf(e.getMessage());
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }

    @Override
    public void close() {
        spark.stop();
    }
}
