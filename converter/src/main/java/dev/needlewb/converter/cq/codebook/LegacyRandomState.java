package dev.needlewb.converter.cq.codebook;

/**
 * NumPy's legacy {@code numpy.random.RandomState(seed)} for an integer seed, as far as the
 * codebook and the Needle 3 MLP permutations need it: MT19937 seeded with {@code init_genrand},
 * 53-bit doubles built from two 32-bit draws, the legacy polar (Marsaglia) Gaussian that caches
 * the second variate, and {@code permutation(n)} (a Fisher-Yates shuffle of {@code arange(n)}).
 *
 * <p>The uniform stream is bit-exact. The Gaussians are bit-exact except where the logarithm
 * differs from the one NumPy links (glibc's {@code log}, which is not correctly rounded and itself
 * differs between its FMA and non-FMA builds). Measured on {@code randn(400000)} with seed 0
 * against NumPy 2.4 on glibc 2.36 (FMA): {@link Math#log} makes 75 of the 200000 polar pairs
 * differ in the last bit, a correctly rounded log 76 and {@link StrictMath#log} (fdlibm) 6944; so
 * this uses {@link Math#log}. None of these changes any bit of the Lloyd-Max codebooks built from
 * the samples: a one-ulp change of a sample vanishes in the cell means.
 */
public final class LegacyRandomState {
    private static final int N = 624;
    private static final int M = 397;
    private static final int MATRIX_A = 0x9908b0df;
    private static final int UPPER_MASK = 0x80000000;
    private static final int LOWER_MASK = 0x7fffffff;

    private final int[] mt = new int[N];
    private int pos;
    private boolean hasGauss;
    private double cachedGauss;

    /** Seeds like {@code RandomState(seed)}: seeds are unsigned 32-bit integers. */
    public LegacyRandomState(long seed) {
        if (seed < 0 || seed > 0xffffffffL) {
            throw new IllegalArgumentException("RandomState seed must be in [0, 2^32), got " + seed);
        }
        int s = (int) seed;
        for (int i = 0; i < N; i++) {
            mt[i] = s;
            s = 1812433253 * (s ^ (s >>> 30)) + i + 1;
        }
        pos = N;
    }

    /** The next tempered 32-bit output of MT19937, as an unsigned value in an int. */
    public int nextInt32() {
        if (pos >= N) regenerate();
        int y = mt[pos++];
        y ^= y >>> 11;
        y ^= (y << 7) & 0x9d2c5680;
        y ^= (y << 15) & 0xefc60000;
        y ^= y >>> 18;
        return y;
    }

    private void regenerate() {
        int k = 0;
        for (; k < N - M; k++) {
            int y = (mt[k] & UPPER_MASK) | (mt[k + 1] & LOWER_MASK);
            mt[k] = mt[k + M] ^ (y >>> 1) ^ ((y & 1) == 0 ? 0 : MATRIX_A);
        }
        for (; k < N - 1; k++) {
            int y = (mt[k] & UPPER_MASK) | (mt[k + 1] & LOWER_MASK);
            mt[k] = mt[k + M - N] ^ (y >>> 1) ^ ((y & 1) == 0 ? 0 : MATRIX_A);
        }
        int y = (mt[N - 1] & UPPER_MASK) | (mt[0] & LOWER_MASK);
        mt[N - 1] = mt[M - 1] ^ (y >>> 1) ^ ((y & 1) == 0 ? 0 : MATRIX_A);
        pos = 0;
    }

    /** {@code random_sample()}: a uniform double in [0, 1) with 53 random bits. */
    public double nextDouble() {
        long a = (nextInt32() & 0xffffffffL) >>> 5;
        long b = (nextInt32() & 0xffffffffL) >>> 6;
        return (a * 67108864.0 + b) / 9007199254740992.0;
    }

    /** {@code randn()}: one standard normal variate by the legacy polar method. */
    public double nextGaussian() {
        if (hasGauss) {
            hasGauss = false;
            return cachedGauss;
        }
        double x1;
        double x2;
        double r2;
        do {
            x1 = 2.0 * nextDouble() - 1.0;
            x2 = 2.0 * nextDouble() - 1.0;
            r2 = x1 * x1 + x2 * x2;
        } while (r2 >= 1.0 || r2 == 0.0);
        double f = Math.sqrt(-2.0 * Math.log(r2) / r2);
        cachedGauss = f * x1;
        hasGauss = true;
        return f * x2;
    }

    /**
     * {@code permutation(n)}: {@code arange(n)} shuffled as the legacy {@code shuffle} does, from the
     * last element down: element i swaps with a draw of {@code random_interval(i)}, the low bits of
     * 32-bit outputs under the smallest all-ones mask covering i, redrawn while above i. Exact.
     */
    public int[] permutation(int n) {
        if (n < 0) throw new IllegalArgumentException("permutation length " + n + " is negative");
        int[] out = new int[n];
        for (int i = 0; i < n; i++) out[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int mask = -1 >>> Integer.numberOfLeadingZeros(i);
            int j;
            do {
                j = nextInt32() & mask;
            } while (j > i);
            int t = out[i];
            out[i] = out[j];
            out[j] = t;
        }
        return out;
    }

    /** {@code randn(count)}. */
    public double[] gaussians(int count) {
        double[] out = new double[count];
        for (int i = 0; i < count; i++) out[i] = nextGaussian();
        return out;
    }
}
