package dev.needlewb.cli.scale;

import dev.needlewb.core.ErrorKind;
import dev.needlewb.core.WorkbenchException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.ServiceLoader;
import picocli.CommandLine.Option;

/** The options of every command that can run its sweep on Apache Spark. */
public final class ScaleOptions {
    /** The system property spark-submit sets: a command it started runs on Spark without {@code --master}. */
    public static final String SUBMITTED_MASTER = "spark.master";

    @Option(names = "--master", paramLabel = "URL",
            description = {"Run the tasks on Apache Spark: local[N] or local[*] on this machine, spark://host:7077 (any Spark master URL)",
                "on a cluster; needs needle-wb-spark.jar (NEEDLE_WB_SPARK=1 ./needle-wb). Without it the command runs in this process."})
    String master;

    @Option(names = "--conf", paramLabel = "KEY=VALUE", description = "A Spark setting (repeatable), as spark-submit's --conf.")
    Map<String, String> conf = new LinkedHashMap<>();

    @Option(names = "--ship-models", description = "Send the model files to the executors with Spark (SparkFiles) instead of reading them at the same path there.")
    boolean shipModels;

    @Option(names = "--partitions", paramLabel = "N",
            description = "Most partitions per model and engine on Spark (default: the cluster's default parallelism).")
    Integer partitions;

    public String master() {
        return master != null ? master : System.getProperty(SUBMITTED_MASTER);
    }

    public Map<String, String> conf() {
        return Map.copyOf(conf);
    }

    public boolean shipModels() {
        return shipModels;
    }

    public Integer partitions() {
        return partitions;
    }

    /** Fails now, before any work, on options that cannot run: Spark's options without a master, a master without Spark. */
    public void check() throws WorkbenchException {
        provider();
    }

    /** This process without a master (one partition at a time); else the Spark runner, which only needle-wb-spark.jar carries. */
    public SweepRunner runner(String appName) throws WorkbenchException {
        return runner(appName, 1);
    }

    /** As {@link #runner(String)}, running up to {@code localPartitions} partitions at once in this process. */
    public SweepRunner runner(String appName, int localPartitions) throws WorkbenchException {
        SweepRunnerProvider provider = provider();
        return provider == null ? new LocalSweepRunner(localPartitions) : provider.open(this, appName);
    }

    /** The provider of the runner the options ask for, null for this process. */
    private SweepRunnerProvider provider() throws WorkbenchException {
        if (partitions != null && partitions < 1) throw new WorkbenchException(ErrorKind.BAD_OPTION, "--partitions must be at least 1, got " + partitions);
        if (master() == null) {
            if (!conf.isEmpty() || shipModels || partitions != null) {
                throw new WorkbenchException(ErrorKind.BAD_OPTION, "--conf, --ship-models and --partitions are for a run with --master");
            }
            return null;
        }
        return ServiceLoader.load(SweepRunnerProvider.class).findFirst().orElseThrow(() -> new WorkbenchException(
                ErrorKind.BAD_OPTION, "--master runs the sweep on Apache Spark, which this jar does not carry: run NEEDLE_WB_SPARK=1 ./needle-wb"
                        + " (spark/target/needle-wb-spark.jar)"));
    }
}
