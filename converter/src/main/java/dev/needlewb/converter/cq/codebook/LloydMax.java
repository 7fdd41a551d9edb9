package dev.needlewb.converter.cq.codebook;

import java.util.Arrays;

/**
 * The Lloyd-Max quantizer of a standard Gaussian that the CQ codebooks come from, computed the
 * way upstream does (float64 throughout): {@code np.sort(RandomState(0).randn(400000))}, centres
 * initialised at the sample quantiles {@code x[int((k + 0.5) / K * N)]}, then 200 rounds of
 * boundaries = midpoints of neighbouring centres, cell = {@code searchsorted(boundaries, x)}
 * (side left: a sample equal to a boundary belongs to the lower cell) and centre = NumPy mean of
 * its cell (an empty cell keeps its centre); finally sorted.
 *
 * <p>Because the samples are sorted, every cell is a contiguous run of them, so a round costs
 * one pairwise sum over the samples. The samples are drawn once per JVM and every bits value is
 * solved at most once.
 */
public final class LloydMax {
    public static final int SAMPLES = 400_000;
    public static final int ITERATIONS = 200;
    public static final long SEED = 0;

    private static final double[][] SOLVED = new double[Byte.SIZE + 1][];

    private LloydMax() {}

    /** The 2^bits sorted float64 centres for unit variance, before any division by sqrt(group). */
    public static double[] centres(int bits) {
        if (bits < 1 || bits > Byte.SIZE) throw new IllegalArgumentException("Lloyd-Max bits must be 1..8, got " + bits);
        synchronized (SOLVED) {
            if (SOLVED[bits] == null) SOLVED[bits] = solve(1 << bits, SortedSamples.X);
            return SOLVED[bits].clone();
        }
    }

    private static double[] solve(int levels, double[] x) {
        int n = x.length;
        double[] c = new double[levels];
        for (int k = 0; k < levels; k++) c[k] = x[(int) ((k + 0.5) / levels * n)];
        double[] boundaries = new double[levels - 1];
        int[] cellStart = new int[levels + 1];
        for (int round = 0; round < ITERATIONS; round++) {
            for (int k = 0; k < levels - 1; k++) boundaries[k] = (c[k] + c[k + 1]) / 2.0;
            for (int k = 0; k <= levels; k++) cellStart[k] = firstWithCellAtLeast(x, boundaries, k);
            for (int k = 0; k < levels; k++) {
                int count = cellStart[k + 1] - cellStart[k];
                if (count > 0) c[k] = PairwiseSum.mean(x, cellStart[k], count);
            }
        }
        Arrays.sort(c);
        return c;
    }

    /**
     * The first index i of the sorted samples whose cell {@code #(boundaries < x[i])} is at least
     * {@code cell} (the cell is non-decreasing in i whatever the order of the boundaries).
     */
    private static int firstWithCellAtLeast(double[] x, double[] boundaries, int cell) {
        int lo = 0;
        int hi = x.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (cellOf(x[mid], boundaries) >= cell) hi = mid;
            else lo = mid + 1;
        }
        return lo;
    }

    private static int cellOf(double value, double[] boundaries) {
        int below = 0;
        for (double b : boundaries) if (b < value) below++;
        return below;
    }

    /** {@code np.sort(RandomState(SEED).randn(SAMPLES))}, drawn on first use. */
    private static final class SortedSamples {
        static final double[] X = draw();

        private static double[] draw() {
            double[] x = new LegacyRandomState(SEED).gaussians(SAMPLES);
            Arrays.sort(x);
            return x;
        }
    }
}
