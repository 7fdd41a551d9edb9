package dev.needlewb.reference;

/**
 * Multiplication by a scaled Walsh-Hadamard matrix in Sylvester order
 * ({@code H[i][j] = (-1)^popcount(i & j)}, symmetric, so {@code x @ H = H x}) by the fast butterfly.
 */
final class Hadamard {
    private Hadamard() {}

    /** In place: {@code x[off, off+n) <- (x @ H) * scale}; n must be a power of two. */
    static void transform(double[] x, int off, int n, double scale) {
        if (Integer.bitCount(n) != 1) throw new IllegalArgumentException("Hadamard length " + n + " is not a power of two");
        for (int h = 1; h < n; h <<= 1) {
            for (int i = 0; i < n; i += h << 1) {
                for (int j = off + i; j < off + i + h; j++) {
                    double a = x[j];
                    double b = x[j + h];
                    x[j] = a + b;
                    x[j + h] = a - b;
                }
            }
        }
        for (int i = off; i < off + n; i++) x[i] *= scale;
    }

    /** The smallest power of two at least {@code n} (upstream's {@code 1 << (n - 1).bit_length()}). */
    static int paddedLength(int n) {
        return n <= 1 ? 1 : Integer.highestOneBit(n - 1) << 1;
    }
}
