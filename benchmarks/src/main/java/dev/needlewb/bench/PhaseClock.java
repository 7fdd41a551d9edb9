package dev.needlewb.bench;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;

/**
 * Wall and process CPU time of the phases of a one-shot harness, printed as they end, with the
 * machine's load: on a shared machine wall time measures the neighbours as much as the code, and
 * CPU / wall says how much of a core the process got.
 */
public final class PhaseClock {
    private static final OperatingSystemMXBean OS = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private long wall = System.nanoTime();
    private long cpu = OS.getProcessCpuTime();

    /** Prints the processors and the load average now. */
    public static void printLoad(String when) {
        System.out.printf("cpus %d, load average %.1f %s%n", Runtime.getRuntime().availableProcessors(), OS.getSystemLoadAverage(), when);
    }

    /** Prints and returns the wall and CPU seconds since the previous phase. */
    public double[] phase(String name) {
        long w = System.nanoTime();
        long c = OS.getProcessCpuTime();
        double[] s = {(w - wall) / 1e9, (c - cpu) / 1e9};
        System.out.printf("%-60s wall %6.3f s, cpu %6.3f s%n", name, s[0], s[1]);
        wall = w;
        cpu = c;
        return s;
    }
}
