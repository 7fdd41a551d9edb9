package dev.needlewb.spark;

import dev.needlewb.cli.scale.ScaleOptions;
import dev.needlewb.cli.scale.SweepRunner;
import dev.needlewb.cli.scale.SweepRunnerProvider;
import dev.needlewb.core.WorkbenchException;

/** The Spark runner, which the command line finds through the service loader in needle-wb-spark.jar. */
public final class SparkRunnerProvider implements SweepRunnerProvider {
    @Override
    public SweepRunner open(ScaleOptions options, String appName) throws WorkbenchException {
        return SparkSweepRunner.open(options, appName);
    }
}
