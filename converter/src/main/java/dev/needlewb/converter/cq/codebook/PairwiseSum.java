package dev.needlewb.converter.cq.codebook;

/**
 * NumPy's {@code pairwise_sum} for float64 ({@code np.sum}/{@code np.mean} along a contiguous
 * axis), reproduced operation for operation so the rounding is identical: fewer than 8 elements
 * are added left to right; up to 128 (NumPy's {@code PW_BLOCKSIZE}) go through 8 interleaved
 * accumulators combined as {@code ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))} followed by the tail;
 * longer runs split at half the length rounded down to a multiple of 8 and recurse.
 */
public final class PairwiseSum {
    private static final int BLOCK = 128;

    private PairwiseSum() {}

    /** The sum of {@code a[from, from + n)} exactly as NumPy rounds it. */
    public static double sum(double[] a, int from, int n) {
        if (n < 8) {
            double res = 0.0;
            for (int i = 0; i < n; i++) res += a[from + i];
            return res;
        }
        if (n <= BLOCK) {
            double r0 = a[from], r1 = a[from + 1], r2 = a[from + 2], r3 = a[from + 3];
            double r4 = a[from + 4], r5 = a[from + 5], r6 = a[from + 6], r7 = a[from + 7];
            int i = 8;
            int whole = n - n % 8;
            for (; i < whole; i += 8) {
                int p = from + i;
                r0 += a[p];
                r1 += a[p + 1];
                r2 += a[p + 2];
                r3 += a[p + 3];
                r4 += a[p + 4];
                r5 += a[p + 5];
                r6 += a[p + 6];
                r7 += a[p + 7];
            }
            double res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7));
            for (; i < n; i++) res += a[from + i];
            return res;
        }
        int half = n / 2;
        half -= half % 8;
        return sum(a, from, half) + sum(a, from + half, n - half);
    }

    /** {@code np.mean} of {@code a[from, from + n)}, n > 0: the pairwise sum divided by n. */
    public static double mean(double[] a, int from, int n) {
        return sum(a, from, n) / n;
    }
}
