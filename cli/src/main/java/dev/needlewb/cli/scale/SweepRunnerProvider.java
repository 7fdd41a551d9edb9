package dev.needlewb.cli.scale;

import dev.needlewb.core.WorkbenchException;

/** A runner on a cluster framework, found through {@link java.util.ServiceLoader} in a jar that carries one (needle-wb-spark.jar). */
public interface SweepRunnerProvider {
    /** Connects to the master the options name (or the one spark-submit set); {@code appName} names the job there. */
    SweepRunner open(ScaleOptions options, String appName) throws WorkbenchException;
}
